"""The write path: clean, embed, deduplicate and store memories in one transaction.

For each memory, in input order (so a batch deduplicates against itself too): a live memory
of the same project and category with the same content hash, or at least `near_threshold`
cosine-similar and stating the same facts, is reinforced; otherwise the row is inserted.
When the embedder fails or misses the write deadline, memories are stored without a vector
(full-text search still finds them) and `embed_pending` fills the vectors in later.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import psycopg

from chalicelib.kernel.database import Database
from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.logging import get_logger
from chalicelib.memory.adapters.memory_repository import Conn, MemoryRepository
from chalicelib.memory.adapters.memory_search import MemorySearch
from chalicelib.memory.domain.dedup_guard import same_facts
from chalicelib.memory.domain.memory_hygiene import CleanMemory, clean, content_hash, embedding_text
from chalicelib.memory.domain.memory_model import MemoryDraft, NewMemoryRow, StoreResult
from chalicelib.memory.services.deadline_embedding import DeadlineEmbedder

ATTEMPTS = 3  # a deadlock between two batches reinforcing the same rows is retried
ANALYZE_MIN_ROWS = 200  # refresh the full-text statistics after this many new rows...
ANALYZE_SHARE = 0.1  # ...or this share of the table, whichever is larger


class MemoryStore:
    def __init__(self, db: Database, repo: MemoryRepository, search: MemorySearch,
                 embedding: DeadlineEmbedder, *, write_timeout_s: float, near_threshold: float) -> None:
        self._db = db
        self._repo = repo
        self._search = search
        self._embedding = embedding
        self.write_timeout_s = write_timeout_s
        self._near_threshold = near_threshold
        self._since_analyze = 0
        self._table_rows = 0.0
        self._lock = threading.Lock()

    def store(self, drafts: Sequence[MemoryDraft], *, near_dedup: bool,
              field_prefix: str | None = None) -> list[StoreResult]:
        cleaned = [self._clean(draft, i, field_prefix) for i, draft in enumerate(drafts)]
        embedded = self._embedding.embed([c.embedding_text for c in cleaned], self.write_timeout_s)
        model = self._embedding.embedder.model if embedded.vectors is not None else None
        vectors: Sequence[list[float] | None] = embedded.vectors or [None] * len(cleaned)
        rows = [
            NewMemoryRow(project=c.project, category=c.category, content=c.content, summary=c.summary,
                         files=c.files, metadata=c.metadata, content_hash=c.content_hash, embedding=v,
                         embedding_model=model, created_at=d.created_at,
                         significance=0.5 if d.significance is None else d.significance,
                         confidence=0.5 if d.confidence is None else d.confidence,
                         session_id=d.session_id, source_ids=d.source_ids)
            for c, v, d in zip(cleaned, vectors, drafts, strict=True)
        ]
        results = self._write(rows, near_dedup)
        self._after_write(sum(1 for r in results if not r.deduplicated))
        return results

    def _clean(self, draft: MemoryDraft, index: int, prefix: str | None) -> CleanMemory:
        try:
            return clean(draft)
        except InvalidInput as exc:
            if prefix is None:
                raise
            field = f"{prefix}.{index}.{exc.field}"
            raise InvalidInput(f"{prefix}.{index}: {exc.message}", field=field) from None

    def _write(self, rows: list[NewMemoryRow], near_dedup: bool) -> list[StoreResult]:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                with self._db.connection() as conn:
                    return [self._write_one(conn, row, near_dedup) for row in rows]
            except (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure):
                if attempt == ATTEMPTS:
                    raise
                get_logger().warning("memory write retried after a deadlock", extra={"attempt": attempt})
        raise AssertionError("unreachable")

    def _write_one(self, conn: Conn, row: NewMemoryRow, near_dedup: bool) -> StoreResult:
        if near_dedup and row.embedding is not None:
            for near in self._repo.nearest(conn, row.project, row.category, row.embedding):
                if near.similarity < self._near_threshold:
                    break
                existing = near.memory
                exact = content_hash(existing.category, existing.content) == row.content_hash
                if exact or same_facts(existing.content, row.content):
                    self._repo.reinforce_in(conn, existing.id, row.created_at)
                    return StoreResult(existing.id, True, "exact" if exact else "near")
        memory_id, inserted = self._repo.insert(conn, row)
        return StoreResult(memory_id, not inserted, None if inserted else "exact")

    def _after_write(self, inserted: int) -> None:
        """Refresh the planner statistics the text score's IDF comes from, once enough changed."""
        with self._lock:
            self._since_analyze += inserted
            due = self._since_analyze >= max(ANALYZE_MIN_ROWS, ANALYZE_SHARE * self._table_rows)
            if due:
                self._since_analyze = 0
        if due:
            self._table_rows = self._search.refresh_statistics()

    def embed_pending(self, limit: int) -> int:
        pending = self._repo.missing_embeddings(limit)
        if not pending:
            return 0
        embedded = self._embedding.embed([embedding_text(c, s) for _, c, s in pending], self.write_timeout_s)
        if embedded.vectors is None:
            return 0
        self._repo.set_embeddings([(i, v) for (i, _, _), v in zip(pending, embedded.vectors, strict=True)],
                                  self._embedding.embedder.model)
        return len(pending)
