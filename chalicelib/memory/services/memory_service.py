"""The memory core's use cases: remember, search, read, reinforce, update, forget.

Everything stored is redacted and capped first (`memory_hygiene.clean`); the redacted text is
what gets embedded. Storing deduplicates: the same (project, category, normalised content) is
one row, and a near duplicate (cosine >= near_threshold, same facts per `dedup_guard`) in the
same project and category reinforces the existing memory instead of adding a row. A search
whose query embedding misses its deadline degrades to full-text only and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from chalicelib.kernel.database import Database
from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound, Unavailable
from chalicelib.kernel.redaction import redact
from chalicelib.memory.adapters.memory_repository import MemoryRepository
from chalicelib.memory.adapters.memory_search import MemorySearch, SearchScope
from chalicelib.memory.domain.memory_hygiene import (
    MAX_CONTENT_CHARS,
    CleanMemory,
    cap,
    clean,
    clean_metadata,
    clean_text,
)
from chalicelib.memory.domain.memory_model import (
    GLOBAL_PROJECT,
    SEARCH_MODES,
    Memory,
    MemoryDraft,
    MemoryStats,
    SearchMode,
    SearchResult,
    SimilarMemory,
    StoreResult,
)
from chalicelib.memory.domain.search_scoring import SearchWeights
from chalicelib.memory.services.deadline_embedding import DeadlineEmbedder
from chalicelib.memory.services.memory_store import MemoryStore
from chalicelib.memory.services.ports import Embedder

MAX_QUERY_CHARS = 2_000
NEAR_DUPLICATE_COSINE = 0.92


class MemoryService:
    def __init__(self, db: Database, embedder: Embedder, *, weights: SearchWeights | None = None,
                 query_timeout_s: float = 2.0, write_timeout_s: float = 30.0,
                 near_threshold: float = NEAR_DUPLICATE_COSINE) -> None:
        self._repo = MemoryRepository(db)
        self._search = MemorySearch(db)
        self._embedding = DeadlineEmbedder(embedder)
        self._weights = (weights or SearchWeights()).normalised()
        self._query_timeout_s = query_timeout_s
        self._store = MemoryStore(db, self._repo, self._search, self._embedding,
                                  write_timeout_s=write_timeout_s, near_threshold=near_threshold)

    @property
    def embedder(self) -> Embedder:
        return self._embedding.embedder

    @property
    def weights(self) -> SearchWeights:
        return self._weights

    # -- storing -----------------------------------------------------------------------------

    def remember(self, draft: MemoryDraft, *, near_dedup: bool = True) -> StoreResult:
        """Store one memory (redacted, capped, deduplicated); return its id and whether it existed."""
        return self._store.store([draft], near_dedup=near_dedup)[0]

    def remember_many(self, drafts: Sequence[MemoryDraft], *, near_dedup: bool = True) -> list[StoreResult]:
        """Store several memories in one transaction; results are in input order."""
        return self._store.store(drafts, near_dedup=near_dedup, field_prefix="memories")

    def record_code_change(self, project: str, file: str, summary: str, *, category: str = "code_change",
                           diff: str | None = None, metadata: dict[str, Any] | None = None) -> StoreResult:
        """A file edit as a memory: "<file>: <summary>", then the start of the diff."""
        content = f"{file}: {summary}"
        if diff:
            content += "\n" + cap(diff, 2_000)
        return self.remember(MemoryDraft(project=project, category=category, content=content,
                                         files=(file,), metadata={**(metadata or {}), "file": file}))

    # -- searching and reading ----------------------------------------------------------------

    def search(self, query: str, project: str, *, limit: int = 10, category: str | None = None,
               mode: SearchMode = "hybrid", include_global: bool = True,
               metadata: dict[str, Any] | None = None, weights: SearchWeights | None = None) -> SearchResult:
        """The best `limit` memories of `project` (plus `_global`), scores in [0, 1]."""
        if mode not in SEARCH_MODES:
            raise InvalidInput(f"mode must be one of {', '.join(SEARCH_MODES)}", field="mode")
        text = redact(query).strip()[:MAX_QUERY_CHARS]
        if not text:
            raise InvalidInput("query is empty", field="query")
        alone = project == GLOBAL_PROJECT or not include_global
        projects = (project,) if alone else (project, GLOBAL_PROJECT)
        used, degraded, vector = mode, None, None
        if mode != "text":
            embedded = self._embedding.embed([text], self._query_timeout_s)
            if embedded.vectors is None:
                used, degraded = "text", embedded.failure
            else:
                vector = embedded.vectors[0]
        hits = self._search.search(text, vector, SearchScope(projects, category, metadata), mode=used,
                                   limit=limit, weights=(weights.normalised() if weights else self._weights))
        self._repo.touch([h.id for h in hits])
        return SearchResult(hits, used, degraded)

    def recent(self, project: str | None = None, *, limit: int = 10, category: str | None = None,
               metadata: dict[str, Any] | None = None) -> list[Memory]:
        """Newest live memories first, optionally of one project, category and metadata subset."""
        return self._repo.recent(project, category, limit, metadata)

    def get(self, memory_id: str, *, record_access: bool = True) -> Memory:
        memory = self._repo.get(memory_id, record_access=record_access)
        if memory is None:
            raise NotFound(f"no memory {memory_id}", field="id")
        return memory

    def delete(self, memory_id: str) -> None:
        if self._repo.delete([memory_id]) == 0:
            raise NotFound(f"no memory {memory_id}", field="id")

    def delete_many(self, memory_ids: Sequence[str]) -> int:
        return self._repo.delete(memory_ids) if memory_ids else 0

    def stored_chunks(self, project: str, source_path: str) -> list[tuple[str, str, str | None]]:
        """(id, content hash, file hash) of the indexed chunks of one file (see memory_indexing)."""
        return self._repo.chunks_of(project, source_path)

    def stats(self, project: str | None = None) -> MemoryStats:
        return self._repo.stats(project)

    # -- the learning loop's handles ------------------------------------------------------------

    def reinforce(self, memory_id: str) -> Memory:
        """times_reinforced + 1 and last seen now."""
        if not self._repo.reinforce(memory_id):
            raise NotFound(f"no memory {memory_id}", field="id")
        return self.get(memory_id, record_access=False)

    def update_content(self, memory_id: str, content: str, summary: str | None = None) -> Memory:
        """New wording for a memory (redacted, re-embedded); Conflict if it duplicates another."""
        current = self.get(memory_id, record_access=False)
        cleaned: CleanMemory = clean(MemoryDraft(project=current.project, category=current.category,
                                                 content=content, summary=summary or current.summary))
        embedded = self._embedding.embed([cleaned.embedding_text], self._store.write_timeout_s)
        vector = embedded.vectors[0] if embedded.vectors else None
        try:
            self._repo.update_content(memory_id, content=cleaned.content, summary=cleaned.summary,
                                      content_hash=cleaned.content_hash, embedding=vector,
                                      embedding_model=self.embedder.model if vector else None)
        except psycopg.errors.UniqueViolation:
            raise Conflict("another memory of this project and category already says that",
                           field="content") from None
        return self.get(memory_id, record_access=False)

    def update_metadata(self, memory_id: str, metadata: dict[str, Any], *, merge: bool = True) -> Memory:
        """Merge (or replace) a memory's metadata; values are redacted like everything stored."""
        if not self._repo.update_fields(memory_id, metadata=clean_metadata(metadata), merge=merge):
            raise NotFound(f"no memory {memory_id}", field="id")
        return self.get(memory_id, record_access=False)

    def update_scores(self, memory_id: str, *, significance: float | None = None,
                      confidence: float | None = None, superseded_by: str | None = None) -> Memory:
        """Set significance/confidence (0-1) or mark the memory superseded by another."""
        for name, value in (("significance", significance), ("confidence", confidence)):
            if value is not None and not 0 <= value <= 1:
                raise InvalidInput(f"{name} must be in [0, 1]", field=name)
        if not self._repo.update_fields(memory_id, significance=significance, confidence=confidence,
                                        superseded_by=superseded_by):
            raise NotFound(f"no memory {memory_id}", field="id")
        return self.get(memory_id, record_access=False)

    def find_similar(self, project: str, category: str | None, text: str, threshold: float = 0.85,
                     limit: int = 5) -> list[SimilarMemory]:
        """Live memories of (project, category) at least `threshold` cosine-similar to `text`."""
        embedded = self._embedding.embed([clean_text(text, MAX_CONTENT_CHARS)], self._store.write_timeout_s)
        if embedded.vectors is None:
            raise Unavailable(f"the embedding model is unavailable ({embedded.failure})")
        return self._repo.similar(project, category, embedded.vectors[0], threshold, limit)

    def embed_pending(self, limit: int = 100) -> int:
        """Embed memories stored while the embedder was down; return how many were done."""
        return self._store.embed_pending(limit)

    def close(self) -> None:
        self._embedding.close()
