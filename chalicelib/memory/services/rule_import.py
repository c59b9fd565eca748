"""Import other tools' rule files (CLAUDE.md, AGENTS.md, Cursor, Copilot, Cline, Windsurf) as
project rules and memories, with provenance, idempotently.

A file's rules and guidelines go into the one instruction store (`InstructionStore.import_file`),
tied to the file and line they came from: each is reconciled with the live rules (a restatement
reinforces, a changed rule of the same file supersedes its old wording, a clash with a rule from
elsewhere is flagged for a person), and a rule the file no longer holds is retired. Items of every
file named in a request are all of that file's items (the client sends a file whole).
The rest (a memory bank's sections) is stored as memories:

The client reads the files (`agent/transcripts/rule_files.py`) and sends items; each is cleaned the way
every memory is (redaction, caps), then looked up by content hash in the project: an item the
project already holds, in any phase, is reported `exists` and left alone (not reinforced), so a
second run adds nothing. A dry run reports the same without writing. Items are stored with
`source: import` and `metadata.import_path` and `metadata.imported_from`: trusted when a person
imports them (an admin key), quarantined when a machine or client key sends them (any process on
the machine could have written those files), so that their rules are proposals until promoted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain import provenance
from chalicelib.memory.domain.memory_hygiene import clean
from chalicelib.memory.domain.memory_model import INSTRUCTION_CATEGORIES, MemoryDraft, StoreResult
from chalicelib.memory.services.ports import InstructionStore


@dataclass(frozen=True)
class ImportedText:
    category: str
    content: str
    path: str
    tool: str
    line: int | None = None


class ImportCheck(Protocol):
    def present(self, project: str, hashes: Sequence[str]) -> set[str]: ...


class ImportUnit(Protocol):
    @property
    def imports(self) -> ImportCheck: ...


class Writer(Protocol):
    def remember_many(self, drafts: Sequence[MemoryDraft], *,
                      near_dedup: bool = True) -> list[StoreResult]: ...


class RuleImport:
    def __init__(self, units: Callable[[], AbstractContextManager[ImportUnit]], memory: Writer,
                 instructions: InstructionStore | None = None) -> None:
        self._units = units
        self._memory = memory
        self._instructions = instructions

    def run(self, project: str, items: Sequence[ImportedText], *, dry_run: bool,
            writer: provenance.Writer = "pipeline") -> dict[str, Any]:
        drafts = [self._draft(project, item, i, writer) for i, item in enumerate(items)]
        with self._units() as uow:
            present = uow.imports.present(project, [d.content_hash for d in drafts])
        fresh: list[MemoryDraft] = []
        seen: set[str] = set()
        report = []
        for item, draft in zip(items, drafts, strict=True):
            new = draft.content_hash not in present and draft.content_hash not in seen
            seen.add(draft.content_hash)
            if new:
                fresh.append(draft)
            report.append({"category": draft.category, "content": draft.content, "path": item.path,
                           "tool": item.tool, "status": "new" if new else "exists"})
        ids: list[str] = []
        answer = {"project": project, "dry_run": dry_run, "added": 0 if dry_run else len(fresh),
                  "would_add": len(fresh), "existing": len(items) - len(fresh), "ids": ids, "items": report}
        if dry_run:
            return answer
        if self._instructions is None:
            ids += [r.id for r in self._memory.remember_many(fresh, near_dedup=False)] if fresh else []
            return answer
        others = [d for d in fresh if d.category not in INSTRUCTION_CATEGORIES]
        ids += [r.id for r in self._memory.remember_many(others, near_dedup=False)] if others else []
        return {**answer, **self._reconcile_files(project, items, writer, report, ids)}

    def _reconcile_files(self, project: str, items: Sequence[ImportedText], writer: provenance.Writer,
                         report: list[dict[str, Any]], ids: list[str]) -> dict[str, Any]:
        """Each file's rules through the instruction store; the report says what each one did."""
        assert self._instructions is not None
        files: dict[tuple[str, str], list[int]] = {}
        for index, item in enumerate(items):
            if item.category in INSTRUCTION_CATEGORIES:
                files.setdefault((item.path, item.tool), []).append(index)
        outcomes: list[dict[str, Any]] = []
        for (path, tool), indexes in files.items():
            lines = [(items[i].category, items[i].content, items[i].line) for i in indexes]
            answered = self._instructions.import_file(project, path, tool, lines, writer=writer)
            for i, outcome in zip(indexes, answered, strict=False):  # one per line given, in order
                known = outcome["outcome"] in ("reinforced", "unchanged")
                report[i].update(status="exists" if known else "new", outcome=outcome["outcome"],
                                 id=outcome["id"], line=items[i].line)
            outcomes += answered
        new = [o for o in outcomes if o["outcome"] not in ("reinforced", "unchanged", "retired")]
        ids += [o["id"] for o in new]
        added = len(ids)
        return {"added": added, "existing": len(items) - added, "ids": ids,
                "retired": [o for o in outcomes if o["outcome"] == "retired"],
                "flagged": [o for o in outcomes if o["outcome"] == "flagged"]}

    @staticmethod
    def _draft(project: str, item: ImportedText, index: int, writer: provenance.Writer) -> MemoryDraft:
        metadata = {"source": "import", "import_path": item.path, "imported_from": item.tool}
        try:
            return clean(MemoryDraft(project=project, category=item.category, content=item.content,
                                     metadata=metadata, source="import", writer=writer,
                                     significance=0.7 if item.category == "project_rule" else None,
                                     confidence=0.9 if item.category == "project_rule" else None))
        except InvalidInput as exc:
            raise InvalidInput(f"items.{index}: {exc.message}", field=f"items.{index}.{exc.field}") from None
