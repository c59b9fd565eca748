"""The memory core's use cases: remember, search, read, reinforce, update, forget.

Everything stored is redacted and capped first (`memory_hygiene.clean`); the redacted text is
what gets embedded. Storing deduplicates: the same (project, category, normalised content) is
one row, and a near duplicate (cosine >= near_threshold, same facts per `dedup_guard`) in the
same project and category reinforces the existing memory instead of adding a row. A search
whose query embedding misses its deadline degrades to full-text only and says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound, Unavailable
from chalicelib.kernel.redaction import redact
from chalicelib.memory.domain.memory_hygiene import MAX_CONTENT_CHARS, cap, clean, clean_metadata, clean_text
from chalicelib.memory.domain.memory_model import (
    GLOBAL_PROJECT,
    INSTRUCTION_CATEGORIES,
    SEARCH_MODES,
    Memory,
    MemoryDraft,
    MemoryStats,
    SearchHit,
    SearchMode,
    SearchResult,
    SearchScope,
    SimilarMemory,
    StoreResult,
)
from chalicelib.memory.domain.provenance import Writer
from chalicelib.memory.domain.search_scoring import SearchWeights
from chalicelib.memory.services.deadline_embedding import DeadlineEmbedder
from chalicelib.memory.services.memory_store import MemoryStore, embed_stored
from chalicelib.memory.services.ports import (
    DuplicateContent,
    Embedder,
    InstructionStore,
    MemoryUnitOfWork,
    MemoryUnits,
)

MAX_QUERY_CHARS = 2_000
NEAR_DUPLICATE_COSINE = 0.92


class MemoryService:
    def __init__(self, units: MemoryUnits, embedder: Embedder, *, weights: SearchWeights | None = None,
                 query_timeout_s: float = 2.0, write_timeout_s: float = 30.0,
                 near_threshold: float = NEAR_DUPLICATE_COSINE,
                 instructions: Callable[[], InstructionStore] | None = None,
                 namespaces: Callable[[str], Sequence[str]] | None = None) -> None:
        self._units = units
        self._instructions = instructions
        # The namespace scopes a project reads between its own and `_global` (none without namespaces).
        self._namespaces = namespaces or (lambda project: ())
        self._embedding = DeadlineEmbedder(embedder)
        self._weights = (weights or SearchWeights()).normalised()
        self._query_timeout_s = query_timeout_s
        self.store = MemoryStore(units, self._embedding, write_timeout_s=write_timeout_s,
                                 near_threshold=near_threshold)

    @property
    def embedder(self) -> Embedder:
        return self._embedding.embedder

    @property
    def weights(self) -> SearchWeights:
        return self._weights

    # -- storing -----------------------------------------------------------------------------

    def remember(self, draft: MemoryDraft, *, near_dedup: bool = True) -> StoreResult:
        """Store one memory (redacted, capped, deduplicated); return its id and whether it existed.
        A rule or guideline goes through the one instruction store and its reconciler."""
        if self._instructions is not None and draft.category in INSTRUCTION_CATEGORIES:
            return self._instructions().remember(draft)
        return self.store.store([draft], near_dedup=near_dedup)[0]

    def remember_many(self, drafts: Sequence[MemoryDraft], *, near_dedup: bool = True) -> list[StoreResult]:
        """Store several memories in one transaction; results are in input order."""
        return self.store.store(drafts, near_dedup=near_dedup, field_prefix="memories")

    def record_code_change(self, project: str, file: str, summary: str, *, category: str = "code_change",
                           diff: str | None = None, metadata: dict[str, Any] | None = None,
                           session_id: str | None = None, writer: Writer = "pipeline") -> StoreResult:
        """A file edit as a memory: "<file>: <summary>", then the start of the diff; `session_id` is
        the client's session that made it (its neighbours in search are that session's edits)."""
        content = f"{file}: {summary}"
        if diff:
            content += "\n" + cap(diff, 2_000)
        return self.remember(MemoryDraft(project=project, category=category, content=content,
                                         files=(file,), metadata={**(metadata or {}), "file": file},
                                         session_id=session_id or None, source="assistant", writer=writer))

    # -- searching and reading ----------------------------------------------------------------

    def search(self, query: str, project: str, *, limit: int = 10, category: str | None = None,
               mode: SearchMode = "hybrid", include_global: bool = True,
               metadata: dict[str, Any] | None = None, weights: SearchWeights | None = None,
               tag: str | None = None, include_untrusted: bool = False) -> SearchResult:
        """The best `limit` memories of `project` (plus its namespaces' and `_global`), scores in [0, 1]."""
        alone = project == GLOBAL_PROJECT or not include_global
        projects = (project,) if alone else (project, *self._namespaces(project), GLOBAL_PROJECT)
        return self.search_scopes(query, [(projects, limit)], category=category, mode=mode,
                                  metadata=metadata, weights=weights, tag=tag,
                                  include_untrusted=include_untrusted)

    def search_each(self, query: str, project: str, *, project_limit: int, global_limit: int,
                    category: str | None = None, mode: SearchMode = "hybrid",
                    tag: str | None = None, include_untrusted: bool = False,
                    namespace_limit: int | None = None) -> SearchResult:
        """The best `project_limit` memories of `project`, then the best `namespace_limit` (default
        `global_limit`) of its namespaces together, then the best `global_limit` of `_global`: one
        query embedding for all. For `_global` itself, its best max(limits)."""
        scopes: list[tuple[tuple[str, ...], int]]
        if project == GLOBAL_PROJECT:
            scopes = [((project,), max(project_limit, global_limit))]
        else:
            shared = tuple(self._namespaces(project))
            scopes = [((project,), project_limit)]
            if shared:
                scopes.append((shared, global_limit if namespace_limit is None else namespace_limit))
            scopes.append(((GLOBAL_PROJECT,), global_limit))
        return self.search_scopes(query, scopes, category=category, mode=mode, tag=tag,
                                  include_untrusted=include_untrusted)

    def search_scopes(self, query: str, scopes: Sequence[tuple[tuple[str, ...], int]], *,
                      category: str | None = None, mode: SearchMode = "hybrid",
                      metadata: dict[str, Any] | None = None,
                      weights: SearchWeights | None = None, tag: str | None = None,
                      include_untrusted: bool = False,
                      categories: Sequence[str] | None = None) -> SearchResult:
        """For each (projects, limit), its best memories: hits in scope order, each scope by score.

        Quarantined (untrusted) memories are left out unless `include_untrusted`; `categories`
        (when `category` is not given) keeps only those categories."""
        if mode not in SEARCH_MODES:
            raise InvalidInput(f"mode must be one of {', '.join(SEARCH_MODES)}", field="mode")
        text, used, degraded, vector = self.prepare_query(query, mode)
        chosen = weights.normalised() if weights else self._weights
        only = tuple(categories) if categories is not None else None
        hits: list[SearchHit] = []
        with self._units() as uow:
            for projects, limit in scopes:
                if limit > 0:
                    hits += uow.search.search(text, vector, SearchScope(projects, category, metadata, tag,
                                                                      include_untrusted, only),
                                              mode=used, limit=limit, weights=chosen)
            uow.memories.record_access([h.id for h in hits], throttled=True)
            uow.commit()
        return SearchResult(hits, used, degraded)

    def prepare_query(self, query: str,
                      mode: SearchMode) -> tuple[str, SearchMode, str | None, list[float] | None]:
        """(redacted query, mode used, why it degraded, query vector): text only when embedding fails,
        and at once while the local model is still loading (`itachi up` answers before it is)."""
        text = redact(query).strip()[:MAX_QUERY_CHARS]
        if not text:
            raise InvalidInput("query is empty", field="query")
        used: SearchMode = mode
        degraded, vector = None, None
        if mode != "text" and self._embedding.loading:
            used, degraded = "text", "embedding_loading"
        elif mode != "text":
            embedded = self._embedding.embed([text], self._query_timeout_s)
            if embedded.vectors is None:
                used, degraded = "text", embedded.failure
            else:
                vector = list(embedded.vectors[0])
        return text, used, degraded, vector

    def recent(self, project: str | None = None, *, limit: int = 10, category: str | None = None,
               metadata: dict[str, Any] | None = None, include_untrusted: bool = False) -> list[Memory]:
        """Newest live memories first, optionally of one project, category and metadata subset."""
        with self._units() as uow:
            return uow.memories.recent(project, category, limit, metadata, include_untrusted)

    def promote(self, memory_id: str, by: str) -> Memory:
        """A person vouches for a quarantined memory: it may be injected from now on."""
        with self._units() as uow:
            if not uow.memories.promote(memory_id, by):
                raise NotFound(f"no memory {memory_id}", field="id")
            return self._commit_and_get(uow, memory_id)

    def get(self, memory_id: str, *, record_access: bool = True) -> Memory:
        with self._units() as uow:
            if record_access:
                uow.memories.record_access([memory_id], throttled=False)
            memory = uow.memories.get(memory_id)
            uow.commit()
        if memory is None:
            raise NotFound(f"no memory {memory_id}", field="id")
        return memory

    def delete(self, memory_id: str) -> None:
        if self.delete_many([memory_id]) == 0:
            raise NotFound(f"no memory {memory_id}", field="id")

    def delete_many(self, memory_ids: Sequence[str]) -> int:
        with self._units() as uow:
            deleted = uow.memories.delete(memory_ids)
            uow.commit()
        return deleted

    def stored_chunks(self, project: str, source_path: str) -> list[tuple[str, str, str | None]]:
        """(id, content hash, file hash) of the indexed chunks of one file (see memory_indexing)."""
        with self._units() as uow:
            return uow.memories.chunks_of(project, source_path)

    def stats(self, project: str | None = None) -> MemoryStats:
        with self._units() as uow:
            return uow.memories.stats(project)

    # -- the learning loop's handles ------------------------------------------------------------

    def reinforce(self, memory_id: str) -> Memory:
        """times_reinforced + 1 and last seen now."""
        with self._units() as uow:
            memory = uow.memories.get(memory_id) if uow.memories.reinforce(memory_id) else None
            uow.commit()
        if memory is None:
            raise NotFound(f"no memory {memory_id}", field="id")
        return memory

    def update_content(self, memory_id: str, content: str, summary: str | None = None) -> Memory:
        """New wording for a memory (redacted, re-embedded with its windows when long, as a write
        embeds it); Conflict if it duplicates another."""
        current = self.get(memory_id, record_access=False)
        cleaned = clean(MemoryDraft(project=current.project, category=current.category,
                                    content=content, summary=summary or current.summary))
        vectors = embed_stored(self.embedder, [(memory_id, cleaned.content, cleaned.summary)],
                               lambda texts: self._embedding.embed(texts, self.store.write_timeout_s).vectors)
        with self._units() as uow:
            try:
                uow.memories.update_content(memory_id, content=cleaned.content, summary=cleaned.summary,
                                            content_hash=cleaned.content_hash)
            except DuplicateContent:
                raise Conflict("another memory of this project and category already says that",
                               field="content") from None
            uow.memories.set_embeddings(vectors, self.embedder.model)  # none while the embedder is down
            return self._commit_and_get(uow, memory_id)

    def update_metadata(self, memory_id: str, metadata: dict[str, Any], *, merge: bool = True) -> Memory:
        """Merge (or replace) a memory's metadata; values are redacted like everything stored."""
        with self._units() as uow:
            if not uow.memories.update_fields(memory_id, metadata=clean_metadata(metadata), merge=merge):
                raise NotFound(f"no memory {memory_id}", field="id")
            return self._commit_and_get(uow, memory_id)

    def update_scores(self, memory_id: str, *, significance: float | None = None,
                      confidence: float | None = None, superseded_by: str | None = None) -> Memory:
        """Set significance/confidence (0-1) or mark the memory superseded by another."""
        for name, value in (("significance", significance), ("confidence", confidence)):
            if value is not None and not 0 <= value <= 1:
                raise InvalidInput(f"{name} must be in [0, 1]", field=name)
        with self._units() as uow:
            if not uow.memories.update_fields(memory_id, significance=significance, confidence=confidence,
                                              superseded_by=superseded_by):
                raise NotFound(f"no memory {memory_id}", field="id")
            return self._commit_and_get(uow, memory_id)

    def find_similar(self, project: str, category: str | None, text: str, threshold: float = 0.85,
                     limit: int = 5) -> list[SimilarMemory]:
        """Live memories of (project, category) at least `threshold` cosine-similar to `text`."""
        embedded = self._embedding.embed([clean_text(text, MAX_CONTENT_CHARS)], self.store.write_timeout_s)
        if embedded.vectors is None:
            raise Unavailable(f"the embedding model is unavailable ({embedded.failure})")
        with self._units() as uow:
            return uow.memories.similar(project, category, embedded.vectors[0], threshold, limit)

    def embed_pending(self, limit: int = 100) -> int:
        """Embed memories stored while the embedder was down; return how many were done."""
        return self.store.embed_pending(limit)

    def close(self) -> None:
        self._embedding.close()

    @staticmethod
    def _commit_and_get(uow: MemoryUnitOfWork, memory_id: str) -> Memory:
        memory = uow.memories.get(memory_id)
        uow.commit()
        assert memory is not None
        return memory
