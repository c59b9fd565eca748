"""A rule or lesson as the learning loop reads it: a memory with its learning statistics."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class LearnedItem:
    """A `project_rule`, `task_lesson` (or other learned) memory, with its similarity to a query
    when there was one (cosine, [-1, 1]) and, for lessons, how often it was applied."""

    id: str
    project: str
    category: str
    content: str
    confidence: float
    times_reinforced: int
    last_reinforced_at: datetime
    created_at: datetime
    metadata: dict[str, Any]
    similarity: float = 0.0
    applications: int = 0
    last_applied_at: datetime | None = None
