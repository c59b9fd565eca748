"""Retention: how long each kind of row is kept, and what a cleanup run removed.

Kinds are named for what they hold; memories are never a kind (only the transcript indexer's
chunks are, which are memories of category `transcript`). A kind kept for 0 days is kept forever.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

KINDS = ("task_events", "session_edits", "transcript_chunks", "llm_usage")


@dataclass(frozen=True)
class RetentionPolicy:
    days: Mapping[str, int]  # by kind; 0 keeps forever
    batch_rows: int = 5000
    time_budget_s: float = 240.0

    def __post_init__(self) -> None:
        unknown = set(self.days) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown retention kinds: {', '.join(sorted(unknown))}")

    @property
    def applied(self) -> list[tuple[str, int]]:
        """(kind, days) of the kinds that expire, in the table's order."""
        return [(k, self.days[k]) for k in KINDS if self.days.get(k, 0) > 0]


@dataclass(frozen=True)
class RetentionRun:
    started_at: datetime
    removed: dict[str, int] = field(default_factory=dict)
    complete: bool = True  # False: the time budget ended the run before every old row went
    finished_at: datetime | None = None

    def to_json(self) -> dict[str, object]:
        return {"started_at": self.started_at.isoformat(),
                "finished_at": self.finished_at.isoformat() if self.finished_at else None,
                "removed": dict(self.removed), "complete": self.complete}
