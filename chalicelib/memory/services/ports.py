"""What the memory core needs from the outside world, stated narrowly.

The repositories are bound to one unit of work (one transaction): `MemoryRepository` stores,
reads and updates memories, `SearchIndex` runs the hybrid search. Similarities are cosine
similarities in [-1, 1] (1 = same direction); search scores are in [0, 1], higher is better.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from chalicelib.kernel.unit_of_work import UnitOfWork
from chalicelib.memory.domain.memory_model import (
    Memory,
    MemoryDraft,
    MemoryStats,
    SearchHit,
    SearchMode,
    SearchScope,
    SimilarMemory,
    StoredVectors,
    StoreResult,
)
from chalicelib.memory.domain.provenance import Writer
from chalicelib.memory.domain.search_scoring import SearchWeights


class Embedder(Protocol):
    """Turns texts into unit vectors of `dimension` floats, one per text, in order.

    Implementations: the local sentence-transformers model, the OpenAI API, and a cache over
    either. `embed` may raise; callers that have a deadline enforce it themselves.
    """

    @property
    def model(self) -> str:
        """The model's name, stored with each vector (vectors of two models never mix)."""
        ...

    @property
    def dimension(self) -> int:
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        ...


@runtime_checkable
class TokenCounter(Protocol):
    """An embedder that knows its model's tokens (a local model does): how many it reads of a
    text, and where each token of a text falls."""

    @property
    def max_tokens(self) -> int:
        """Tokens of text the model reads (its window, less its own markers)."""
        ...

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) characters of each of `text`'s tokens, none cut off."""
        ...


class EmbeddingFailed(Exception):
    """The embedding backend failed (network, quota, model); the caller degrades."""


class DuplicateContent(Exception):
    """Another memory of the project already has this content (the same content hash)."""


class TransientConflict(Exception):
    """The transaction lost a deadlock or a serialization race: running it again may succeed."""


class MemoryRepository(Protocol):
    def insert(self, draft: MemoryDraft) -> tuple[str, bool]:
        """Store a cleaned draft, or reinforce the memory of the project with the same content hash:
        (id, inserted)."""
        ...

    def insert_many(self, drafts: Sequence[MemoryDraft]) -> list[tuple[str, bool]]:
        """`insert` for each draft in one statement; no two drafts share (project, content hash)."""
        ...

    def nearest_many(self, project: str, category: str, embeddings: Sequence[Sequence[float]], *,
                     min_similarity: float, limit: int = 5) -> list[list[SimilarMemory]]:
        """`nearest` for each vector, only neighbours at least `min_similarity` similar."""
        ...

    def similar_pairs(self, embeddings: Sequence[Sequence[float]], min_similarity: float, *,
                      first: int = 0) -> list[tuple[int, int, float]]:
        """(i, j, similarity) for the pairs i < j of `embeddings` at least `min_similarity` similar,
        j >= `first` (the pairs among the first `first` vectors were asked for before)."""
        ...

    def stating(self, project: str, category: str, words: Sequence[Sequence[str]], *,
                limit: int = 8) -> list[list[Memory]]:
        """Per list of words: the live memories of (project, category) among its newest STATING_ROWS
        holding the most of them (full text, any one suffices), best first; one list per entry."""
        ...

    def mark_updated(self, pairs: Sequence[tuple[str, str]]) -> None:
        """For each (older id, newer id): the older memory's metadata `updated_by` names the newer
        one, which restates one of its facts with another value (search ranks the older lower),
        unless it names an existing memory already (its first successor: updates form a chain)."""
        ...

    def nearest(self, project: str, category: str, embedding: Sequence[float],
                limit: int = 5) -> list[SimilarMemory]:
        """Live memories of (project, category) closest to `embedding`, most similar first (may be
        approximate)."""
        ...

    def similar(self, project: str, category: str | None, embedding: Sequence[float], threshold: float,
                limit: int) -> list[SimilarMemory]:
        """Live memories at least `threshold` similar, computed exactly, most similar first."""
        ...

    def reinforce(self, memory_id: str, seen_at: datetime | None = None) -> bool:
        """times_reinforced + 1, last_reinforced_at at least `seen_at` (default now); False if unknown."""
        ...

    def get(self, memory_id: str) -> Memory | None: ...

    def record_access(self, memory_ids: Sequence[str], *, throttled: bool) -> None:
        """Count an access (throttled: at most once per memory per few minutes); best effort."""
        ...

    def recent(self, project: str | None, category: str | None, limit: int,
               metadata: dict[str, Any] | None = None, include_untrusted: bool = False) -> list[Memory]:
        """Newest live memories first (quarantined ones only when asked for)."""
        ...

    def stats(self, project: str | None) -> MemoryStats: ...

    def delete(self, memory_ids: Sequence[str]) -> int: ...

    def update_content(self, memory_id: str, *, content: str, summary: str | None, content_hash: str) -> bool:
        """New wording, its old vectors gone (the new ones through `set_embeddings`); raise
        DuplicateContent if another memory says the same."""
        ...

    def update_fields(self, memory_id: str, *, metadata: dict[str, Any] | None = None, merge: bool = True,
                      significance: float | None = None, confidence: float | None = None,
                      superseded_by: str | None = None) -> bool:
        """Set what is given (metadata merged unless `merge` is False); False if unknown."""
        ...

    def promote(self, memory_id: str, by: str) -> bool:
        """Mark a quarantined memory trusted (a person vouched for it); False if unknown."""
        ...

    def revive(self, memory_id: str) -> bool:
        """Make a superseded or retired memory live again from now (it was stated anew), keeping its
        earlier validity interval; False if unknown."""
        ...

    def retire(self, memory_id: str) -> bool:
        """No longer live from now on, with no successor (a rule its file no longer holds)."""
        ...

    def chunks_of(self, project: str, source_path: str) -> list[tuple[str, str, str | None]]:
        """(id, content hash, file hash) of the indexed chunks of one file."""
        ...

    def missing_embeddings(self, limit: int) -> list[tuple[str, str, str]]:
        """(id, content, summary) of memories stored without a vector, newest first."""
        ...

    def set_embeddings(self, items: Sequence[StoredVectors], model: str) -> None:
        """Each stored memory's vector, and its long content's windows' in place of any it had."""
        ...


class SearchIndex(Protocol):
    def search(self, query: str, embedding: Sequence[float] | None, scope: SearchScope, *,
               mode: SearchMode, limit: int, weights: SearchWeights) -> list[SearchHit]:
        """The `limit` best memories in scope, best first; `embedding` is required unless mode is
        "text"."""
        ...

    def refresh_statistics(self) -> float:
        """Refresh what the text score's IDF comes from; return the table's row estimate."""
        ...


class MemoryWriteUnit(Protocol):
    """What the write path needs of a unit of work (the learning loop's units have it too)."""

    @property
    def memories(self) -> MemoryRepository: ...

    def after_commit(self, action: Callable[[], None]) -> None: ...


class MemoryUnitOfWork(MemoryWriteUnit, UnitOfWork, Protocol):
    @property
    def search(self) -> SearchIndex: ...


MemoryUnits = Callable[[], MemoryUnitOfWork]


class InstructionStore(Protocol):
    """The one instruction store (rules and guidelines), owned by the learning loop: the memory
    core hands it every rule it is asked to store, so that no door bypasses its reconciler."""

    def remember(self, draft: MemoryDraft) -> StoreResult:
        """Reconcile one rule or guideline with the live ones and store what it does."""
        ...

    def import_file(self, project: str, path: str, tool: str, lines: Sequence[tuple[str, str, int | None]],
                    *, writer: Writer) -> list[dict[str, Any]]:
        """A rule file's items ((category, text, line)); rules the file no longer holds are retired."""
        ...
