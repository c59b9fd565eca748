"""The memory core's values: what is stored, what a search returns, what a store did."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

GLOBAL_PROJECT = "_global"
SearchMode = Literal["hybrid", "text", "vector"]
SEARCH_MODES: tuple[SearchMode, ...] = ("hybrid", "text", "vector")


@dataclass(frozen=True)
class MemoryDraft:
    """A memory as a caller asks to store it (before redaction and size caps)."""

    project: str
    category: str
    content: str
    summary: str = ""
    files: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None
    significance: float | None = None
    confidence: float | None = None
    session_id: str | None = None
    source_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class NewMemoryRow:
    """A cleaned memory ready for the repository: redacted, capped, hashed and embedded."""

    project: str
    category: str
    content: str
    summary: str
    files: tuple[str, ...]
    metadata: dict[str, Any]
    content_hash: str
    embedding: list[float] | None
    embedding_model: str | None
    created_at: datetime | None = None
    significance: float = 0.5
    confidence: float = 0.5
    session_id: str | None = None
    source_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Memory:
    id: str
    project: str
    category: str
    content: str
    summary: str
    files: tuple[str, ...]
    metadata: dict[str, Any]
    significance: float
    confidence: float
    times_reinforced: int
    last_reinforced_at: datetime
    access_count: int
    last_accessed_at: datetime | None
    phase: int
    superseded_by: str | None
    session_id: str | None
    source_ids: tuple[str, ...]
    created_at: datetime
    updated_at: datetime
    embedding_model: str | None = None


@dataclass(frozen=True)
class StoreResult:
    """What `remember` did: a new row, or an existing one reinforced (exact or near duplicate)."""

    id: str
    deduplicated: bool
    duplicate_kind: Literal["exact", "near"] | None = None


@dataclass(frozen=True)
class SearchHit:
    """One result. `score` is in [0, 1], higher is better (see docs/memory.md for the formula)."""

    id: str
    project: str
    category: str
    content: str
    summary: str
    score: float
    created_at: datetime
    metadata: dict[str, Any]
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    mode: SearchMode
    degraded: str | None = None  # why the mode is not the one asked for, e.g. "embedding_timeout"


@dataclass(frozen=True)
class SimilarMemory:
    """A near neighbour: cosine similarity in [-1, 1] (1 = same direction)."""

    memory: Memory
    similarity: float


@dataclass(frozen=True)
class MemoryStats:
    project: str | None
    total: int
    by_category: dict[str, int]
    with_embedding: int
    reinforced: int
    oldest: datetime | None
    newest: datetime | None
