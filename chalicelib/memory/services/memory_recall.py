"""Recall at the moment of need: what memory holds about a file being read, and the recorded
fixes for an error a command just printed.

Both answer with trusted memories only (quarantined text is never injected). A file's
memories are the ones that list it or name it, code-change records and indexed documents
left out; an error's are bug fixes, lessons and patterns that match it in a hybrid search,
above a floor score so that an unrelated failure brings nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import PurePosixPath
from typing import Protocol

from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain.memory_model import Memory, SearchHit

FILE_SKIP_CATEGORIES = ("code_change", "document", "session_summary")
ERROR_CATEGORIES = frozenset({"bugfix", "bug_fix", "task_lesson", "lesson", "pattern", "project_rule"})
ERROR_MIN_SCORE = 0.3
ERROR_QUERY_CHARS = 600
MIN_NAME_CHARS = 6  # a base name shorter than this ("a.py") names too much to be a match
_NOISE = re.compile(r"^(Exit code -?\d+|Traceback \(most recent call last\):|\s*File \".*)$")


class RecallReader(Protocol):
    def about_file(self, project: str, path: str, name: str | None, skip_categories: Sequence[str],
                   limit: int) -> list[Memory]: ...


class RecallUnit(Protocol):
    @property
    def recall(self) -> RecallReader: ...


class ErrorSearch(Protocol):
    def __call__(self, query: str, project: str, limit: int) -> list[SearchHit]: ...


def error_query(error: str) -> str:
    """The lines of an error worth searching by: no exit code, traceback header or frame lines."""
    lines = [line.strip() for line in error.splitlines() if line.strip() and not _NOISE.match(line)]
    return "\n".join(lines)[-ERROR_QUERY_CHARS:]


class MemoryRecall:
    def __init__(self, units: Callable[[], AbstractContextManager[RecallUnit]], search: ErrorSearch) -> None:
        self._units = units
        self._search = search

    def about_file(self, project: str, path: str, limit: int = 3) -> list[Memory]:
        clean = path.strip().lstrip("./") or path.strip()
        if not clean:
            raise InvalidInput("file must not be empty", field="file")
        name = PurePosixPath(clean).name
        named = name if len(name) >= MIN_NAME_CHARS and name != clean else None
        with self._units() as uow:
            return uow.recall.about_file(project, clean, named, FILE_SKIP_CATEGORIES, limit)

    def for_error(self, project: str, error: str, limit: int = 3) -> list[SearchHit]:
        query = error_query(error)
        if not query:
            return []
        hits = self._search(query, project, 4 * limit)
        return [h for h in hits if h.category in ERROR_CATEGORIES and h.score >= ERROR_MIN_SCORE][:limit]
