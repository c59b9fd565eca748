"""The memory core's values: what is stored, what a search returns, what a store did."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from chalicelib.memory.domain.provenance import Writer, trusted_on_write

GLOBAL_PROJECT = "_global"
SearchMode = Literal["hybrid", "text", "vector"]
SEARCH_MODES: tuple[SearchMode, ...] = ("hybrid", "text", "vector")


MAX_EMBEDDING_CHARS = 8_000
# A memory longer than about the embedding model's window (all-MiniLM-L6-v2: 256 word pieces,
# about 1,000 characters of prose) is also embedded in overlapping windows of CHUNK_WORDS words,
# CHUNK_STEP apart, at most MAX_CHUNKS of them (the content cap, 16,000 characters, fits).
LONG_TEXT_CHARS, CHUNK_WORDS, CHUNK_STEP, MAX_CHUNKS = 1_000, 150, 110, 24


def content_hash(category: str, content: str) -> str:
    """SHA-256 hex of the category and the whitespace/case-normalised content."""
    normal = " ".join(content.split()).casefold()
    return hashlib.sha256(f"{category}\n{normal}".encode()).hexdigest()


def embedding_text(content: str, summary: str = "") -> str:
    """The text a memory is embedded from: summary first when there is one, bounded."""
    text = f"{summary}\n{content}" if summary else content
    return text[:MAX_EMBEDDING_CHARS]


def chunk_texts(content: str) -> list[str]:
    """Overlapping windows of a long `content` (none for a text the model reads whole)."""
    if len(content) <= LONG_TEXT_CHARS:
        return []
    words = content.split()
    out: list[str] = []
    for start in range(0, len(words), CHUNK_STEP):
        out.append(" ".join(words[start:start + CHUNK_WORDS]))
        if start + CHUNK_WORDS >= len(words) or len(out) == MAX_CHUNKS:
            break
    return out if len(out) > 1 else []


@dataclass(frozen=True)
class MemoryDraft:
    """A memory to store: as a caller asks for it, then cleaned (`memory_hygiene.clean`) and
    embedded on its way to the repository. Unset significance and confidence store as 0.5; a
    draft that arrives with its vector (the learning loop embeds its own) is not embedded again.
    """

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
    embedding: list[float] | None = None
    embedding_model: str | None = None
    tags: tuple[str, ...] = ()  # free tags; the write path adds the automatic ones
    source: str = "unspecified"  # where the text came from (`provenance.SOURCES`)
    writer: Writer = "pipeline"  # the path it took here, set by the server (routes: the request's key)
    chunk_embeddings: tuple[list[float], ...] = ()  # a long memory's windows (`chunk_texts`), embedded
    search_key: str = ""  # what full-text search reads beside the text (`search_keys`), set on the write path

    @property
    def trusted(self) -> bool:
        """Untrusted text (a key's, tool output, the web, directives) is quarantined until promoted."""
        return trusted_on_write(self.source, self.writer, self.content)

    @property
    def content_hash(self) -> str:
        return content_hash(self.category, self.content)

    @property
    def embedding_text(self) -> str:
        return embedding_text(self.content, self.summary)

    @property
    def chunk_texts(self) -> list[str]:
        return chunk_texts(self.content)


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
    tags: tuple[str, ...] = ()
    source: str = "unspecified"
    trusted: bool = True
    promoted_at: datetime | None = None
    promoted_by: str | None = None


# The categories of the one instruction store (`learning/services/project_rules.py`): a memory of
# one of them is written through its reconciler, never beside it.
INSTRUCTION_CATEGORIES = ("project_rule", "guideline")


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
    source: str = "unspecified"
    trusted: bool = True
    confirmed_at: datetime | None = None  # last restated (reinforced) or promoted by a person


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


# Categories a search or a recent listing includes only when asked for by name: session
# transcripts (the transcript indexer's chunks) would otherwise crowd every prompt injection, and
# hypotheses (what a failed task thought) must never be injected as facts.
HYPOTHESIS = "hypothesis"
ON_REQUEST_CATEGORIES = ("transcript", HYPOTHESIS)


@dataclass(frozen=True)
class SearchScope:
    """Where a search looks: these projects, optionally one category and a metadata subset."""

    projects: tuple[str, ...]
    category: str | None = None
    metadata: dict[str, Any] | None = None
    tag: str | None = None
    include_untrusted: bool = False  # quarantined memories only when asked for by name
    categories: tuple[str, ...] | None = None  # several categories (a subagent's memory scope)


@dataclass(frozen=True)
class MemoryStats:
    project: str | None
    total: int
    by_category: dict[str, int]
    with_embedding: int
    reinforced: int
    oldest: datetime | None
    newest: datetime | None
