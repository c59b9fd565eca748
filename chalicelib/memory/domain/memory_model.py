"""The memory core's values: what is stored, what a search returns, what a store did."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from chalicelib.memory.domain.provenance import Writer, trusted_on_write

GLOBAL_PROJECT = "_global"
SearchMode = Literal["hybrid", "text", "vector"]
SEARCH_MODES: tuple[SearchMode, ...] = ("hybrid", "text", "vector")


MAX_EMBEDDING_CHARS = 8_000
# A memory longer than the embedding model reads (all-MiniLM-L6-v2: 256 word pieces, 254 of them
# text) is also embedded in windows of that many tokens, WINDOW_OVERLAP apart from the one before,
# the first where the memory's own vector stops reading (from the start when a summary takes part
# of that vector); at most MAX_WINDOWS of them, about 2,000 tokens: full-text search finds the
# rest. Tokens are the model's own (`TokenCounter`); an embedder that cannot count them windows
# by words, WORD_WINDOW to a window.
WINDOW_OVERLAP, MAX_WINDOWS, WORD_WINDOW = 32, 8, 150
_WORD = re.compile(r"\S+")


def content_hash(category: str, content: str) -> str:
    """SHA-256 hex of the category and the whitespace/case-normalised content."""
    normal = " ".join(content.split()).casefold()
    return hashlib.sha256(f"{category}\n{normal}".encode()).hexdigest()


def embedding_text(content: str, summary: str = "") -> str:
    """The text a memory is embedded from: summary first when there is one, bounded."""
    text = f"{summary}\n{content}" if summary else content
    return text[:MAX_EMBEDDING_CHARS]


def word_spans(content: str) -> list[tuple[int, int]]:
    """Where each whitespace-separated word of `content` starts and ends."""
    return [m.span() for m in _WORD.finditer(content)]


def text_windows(content: str, spans: Sequence[tuple[int, int]], size: int, *,
                 from_start: bool = False) -> list[str]:
    """Overlapping windows of `size` tokens (`spans`: each token's characters in `content`) past
    the first `size`, which the memory's own vector reads (from the start if `from_start`);
    none for a text the model reads whole."""
    if len(spans) <= size:
        return []
    step = size - min(WINDOW_OVERLAP, size // 4)
    out: list[str] = []
    for start in range(0 if from_start else step, len(spans), step):
        end = min(start + size, len(spans))
        out.append(content[spans[start][0]:spans[end - 1][1]])
        if end == len(spans) or len(out) == MAX_WINDOWS:
            break
    return out


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
    chunk_texts: tuple[str, ...] = ()  # a long memory's windows (`text_windows`), set on the write path
    chunk_embeddings: tuple[list[float], ...] = ()  # their vectors, in order
    search_key: str = ""  # what full-text search reads beside the text (`search_keys`), set on the write path
    search_context: str = ""  # the memory written just before it, weighted below its own words

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


@dataclass(frozen=True)
class StoredVectors:
    """A stored memory's vector and, for a long one, its windows' vectors (`memory_chunks`), in order."""

    memory_id: str
    embedding: list[float]
    windows: tuple[list[float], ...] = ()


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
