"""Run Claude's memory tool commands against a project's memory files.

Every change is one transaction: the new version of each file is stored through the one write
path (redacted, embedded, `writer` deciding its trust as for every memory) and the versions it
replaces are deleted with it, so a file edited with a machine or client key is quarantined again
whoever wrote it first. Files are tagged `keep`: the lifecycle never shortens them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain import memory_files as files
from chalicelib.memory.domain.memory_files import ROOT, ToolCommand
from chalicelib.memory.domain.memory_hygiene import MAX_CONTENT_CHARS
from chalicelib.memory.domain.memory_lifecycle import KEEP_TAG
from chalicelib.memory.domain.memory_model import Memory, MemoryDraft
from chalicelib.memory.domain.provenance import Writer
from chalicelib.memory.services.memory_store import MemoryStore
from chalicelib.memory.services.ports import MemoryUnits

CATEGORY = "memory_file"
PATH_KEY = "memory_path"
MAX_FILES = 2_000  # per project


class MemoryTool:
    def __init__(self, units: MemoryUnits, store: MemoryStore) -> None:
        self._units = units
        self._store = store

    def run(self, project: str, command: ToolCommand, writer: Writer) -> str:
        """The tool's answer to `command` on `project`'s files; a domain error carries the tool's
        error text (404 no such path, 409 it exists already, 400 anything else)."""
        handlers: dict[str, Callable[[str, ToolCommand, Writer], str]] = {
            "view": self._view, "create": self._create, "str_replace": self._str_replace,
            "insert": self._insert, "delete": self._delete, "rename": self._rename}
        return handlers[command.command](project, command, writer)

    def _view(self, project: str, c: ToolCommand, writer: Writer) -> str:
        stored = self._files(project)
        if c.path == ROOT or any(files.under(p, c.path) for p in stored):
            if c.view_range is not None:
                raise InvalidInput("The `view_range` parameter is not allowed when `path` points to a "
                                   "directory.", field="view_range")
            sizes = {p: len(files.file_text(m.content).encode()) for p, m in stored.items()}
            return files.view_directory(c.path, sizes)
        if c.path not in stored:
            raise files.missing(c.path, prefix="", hint=True)
        return files.view_file(c.path, files.file_text(stored[c.path].content), c.view_range)

    def _create(self, project: str, c: ToolCommand, writer: Writer) -> str:
        stored = self._files(project)
        if c.path == ROOT or c.path in stored or any(files.under(p, c.path) for p in stored):
            raise files.exists(c.path)
        parent = next((p for p in stored if files.under(c.path, p)), None)
        if parent is not None:
            raise InvalidInput(f"Error: {parent} is a file, not a directory", field="path")
        if len(stored) >= MAX_FILES:
            raise InvalidInput(f"Error: a project holds at most {MAX_FILES} memory files", field="path")
        self._write(project, [(c.path, c.file_text)], writer, replacing=())
        return f"File created successfully at: {c.path}"

    def _str_replace(self, project: str, c: ToolCommand, writer: Writer) -> str:
        memory = self._file(project, c.path, hint=True)
        text, answer = files.replace(c.path, files.file_text(memory.content), c.old_str, c.new_str)
        self._write(project, [(c.path, text)], writer, replacing=[memory.id])
        return answer

    def _insert(self, project: str, c: ToolCommand, writer: Writer) -> str:
        memory = self._file(project, c.path, hint=False)
        text, answer = files.insert(c.path, files.file_text(memory.content), c.insert_line, c.insert_text)
        self._write(project, [(c.path, text)], writer, replacing=[memory.id])
        return answer

    def _delete(self, project: str, c: ToolCommand, writer: Writer) -> str:
        if c.path == ROOT:
            raise InvalidInput(f"Error: Cannot delete the {ROOT} directory itself", field="path")
        stored = self._files(project)
        doomed = [m.id for p, m in stored.items() if p == c.path or files.under(p, c.path)]
        if not doomed:
            raise files.missing(c.path)
        with self._units() as uow:
            uow.memories.delete(doomed)
            uow.commit()
        return f"Successfully deleted {c.path}"

    def _rename(self, project: str, c: ToolCommand, writer: Writer) -> str:
        old, new = c.old_path, c.new_path
        if ROOT in (old, new):
            raise InvalidInput(f"Error: {ROOT} itself cannot be renamed or replaced", field="old_path")
        stored = self._files(project)
        if new in stored or any(files.under(p, new) for p in stored):
            raise files.destination_exists(new)
        moving = {p: m for p, m in stored.items() if p == old or files.under(p, old)}
        if not moving:
            raise files.missing(old, field="old_path")
        if files.under(new, old):
            raise InvalidInput(f"Error: cannot move {old} into itself", field="new_path")
        parent = next((p for p in stored if files.under(new, p) and p not in moving), None)
        if parent is not None:
            raise InvalidInput(f"Error: {parent} is a file, not a directory", field="new_path")
        renamed = [(new + p[len(old):], files.file_text(m.content)) for p, m in moving.items()]
        self._write(project, renamed, writer, replacing=[m.id for m in moving.values()])
        return f"Successfully renamed {old} to {new}"

    def _file(self, project: str, path: str, *, hint: bool) -> Memory:
        with self._units() as uow:
            found = uow.memories.recent(project, CATEGORY, 1, {PATH_KEY: path}, True)
        if not found:
            stored = self._files(project)
            if any(files.under(p, path) for p in stored) or path == ROOT:
                raise InvalidInput(f"Error: The path {path} is a directory, not a file", field="path")
            raise files.missing(path, hint=hint)
        return found[0]

    def _files(self, project: str) -> dict[str, Memory]:
        """Each file of the project by path (the newest version, should two ever be stored)."""
        with self._units() as uow:
            found = uow.memories.recent(project, CATEGORY, MAX_FILES, None, True)
        by_path: dict[str, Memory] = {}
        for memory in reversed(found):
            path = memory.metadata.get(PATH_KEY)
            if isinstance(path, str):
                by_path[path] = memory
        return by_path

    def _write(self, project: str, texts: Sequence[tuple[str, str]], writer: Writer, *,
               replacing: Sequence[str]) -> None:
        for path, text in texts:
            if len(files.file_content(path, text)) > MAX_CONTENT_CHARS:
                raise InvalidInput(f"Error: a memory file holds at most {MAX_CONTENT_CHARS - len(path) - 1} "
                                   f"characters ({path})", field="file_text")
        drafts = [MemoryDraft(project=project, category=CATEGORY, content=files.file_content(path, text),
                              metadata={PATH_KEY: path}, tags=(KEEP_TAG,), source="file", writer=writer)
                  for path, text in texts]
        prepared = self._store.prepare(drafts)
        with self._units() as uow:
            written = {r.id for r in self._store.write(uow, prepared, near_dedup=False)}
            uow.memories.delete([i for i in replacing if i not in written])
            uow.commit()
