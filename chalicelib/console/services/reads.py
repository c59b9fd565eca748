"""The console's read-only views across capabilities (project lists, timelines, histories).

Each method is one query in `adapters/console_reads.py`; the pages get plain dicts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol


class ConsoleReads(Protocol):
    def projects(self) -> list[dict[str, Any]]:
        """Every project with memories, by name."""
        ...

    def learned(self, projects: Sequence[str] | None, limit: int) -> list[dict[str, Any]]:
        """Rules and lessons (memories) of these scopes (None: every scope) with confidence,
        reinforcement and outcome counts."""
        ...

    def lesson_history(self, lesson_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """Confidence changes per lesson, newest first."""
        ...

    def sessions(self, project: str | None, limit: int) -> list[dict[str, Any]]:
        """Sessions newest first: prompts, edits, hot files, the synthesized summary."""
        ...

    def embeddings_by_day(self, days: int) -> list[dict[str, Any]]:
        """Memories embedded per UTC day and model over the last `days` days."""
        ...


ReadsFactory = Callable[[], Any]  # a context manager yielding ConsoleReads
