"""The one write path of memories: clean, embed, deduplicate and store.

`prepare` cleans drafts (redaction and caps, `memory_hygiene.clean`) and embeds those that
came without a vector, outside any transaction; `write` stores prepared drafts inside the
caller's unit of work. For each draft, as if stored one by one in input order (so a batch
deduplicates against itself too): a live memory of the same project and category with the same
content hash, or at least
`near_threshold` cosine-similar and stating the same facts, is reinforced; otherwise the row is
inserted (an exact duplicate the vector search did not reach is reinforced by the repository).
`store` does both in a unit of its own, retried when it loses a deadlock, and overlaps them: it
cleans every draft first (a bad one refuses the batch before anything is embedded), then embeds
the batch in chunks of `CHUNK` one after another while it writes each embedded chunk in that
one transaction (`batch_write.BatchWrite`), so the decisions and the atomicity are those of one
write. When the embedder fails or misses the write deadline, memories are stored without a
vector (full-text search still finds them; in a batch, the chunk that failed and the ones after
it) and `embed_pending` fills the vectors in later.

The learning loop writes its insights, rules, lessons and strategy documents through `prepare`
and `write`, inside its own units (their repositories include this capability's).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.logging import get_logger
from chalicelib.memory.domain.memory_hygiene import clean
from chalicelib.memory.domain.memory_model import (
    WORD_WINDOW,
    MemoryDraft,
    StoredVectors,
    StoreResult,
    embedding_text,
    text_windows,
    word_spans,
)
from chalicelib.memory.domain.memory_tags import auto_tags, free_tags, merge_tags
from chalicelib.memory.domain.provenance import quarantine_reason
from chalicelib.memory.domain.search_keys import keyed
from chalicelib.memory.services.batch_write import BatchWrite
from chalicelib.memory.services.deadline_embedding import DeadlineEmbedder, Embedded
from chalicelib.memory.services.ports import (
    Embedder,
    MemoryUnits,
    MemoryWriteUnit,
    TokenCounter,
    TransientConflict,
)

ATTEMPTS = 3  # a deadlock between two batches reinforcing the same rows is retried
CHUNK = 100  # drafts embedded while the chunk before them is written
ANALYZE_MIN_ROWS = 200  # refresh the full-text statistics after this many new rows...
ANALYZE_SHARE = 0.1  # ...or this share of the table, whichever is larger


def _texts(drafts: Sequence[MemoryDraft], missing: Sequence[int]) -> list[str]:
    """What to embed for the drafts at `missing`: each one's text, then each long one's windows."""
    return [drafts[i].embedding_text for i in missing] + [t for i in missing for t in drafts[i].chunk_texts]


def window_texts(embedder: Embedder, content: str, summary: str) -> tuple[str, ...]:
    """The windows a long `content` is also embedded in (`text_windows`): by the model's tokens
    when the embedder counts them, else by words; none for a short one."""
    inner = getattr(embedder, "inner", None)  # under the embedding cache
    counter = next((e for e in (embedder, inner) if isinstance(e, TokenCounter)), None)
    if counter is None:
        spans, size = word_spans(content), WORD_WINDOW
    elif len(content) <= counter.max_tokens:  # a token covers at least one character
        return ()
    else:
        spans, size = counter.token_spans(content), counter.max_tokens
    return tuple(text_windows(content, spans, size, from_start=bool(summary)))


def windows_of(embedder: Embedder, draft: MemoryDraft) -> MemoryDraft:
    """`draft` with the windows its long content is also embedded in (`window_texts`)."""
    windows = window_texts(embedder, draft.content, draft.summary)
    return dataclasses.replace(draft, chunk_texts=windows) if windows else draft


def embed_stored(embedder: Embedder, memories: Sequence[tuple[str, str, str]],
                 embed: Callable[[list[str]], list[list[float]] | None] | None = None) -> list[StoredVectors]:
    """The vectors a write gives stored memories (id, content, summary): each one's own, and its
    windows' when it is long (`windows_of`), in one model call (`embed`, the embedder's own by
    default; none when it answers None)."""
    windows = [window_texts(embedder, content, summary) for _, content, summary in memories]
    texts = [embedding_text(content, summary) for _, content, summary in memories]
    vectors = (embed or embedder.embed)(texts + [t for own in windows for t in own])
    if vectors is None:
        return []
    own_vectors, rest = vectors[:len(memories)], iter(vectors[len(memories):])
    return [StoredVectors(memory_id, vector, tuple(next(rest) for _ in own))
            for (memory_id, _, _), own, vector in zip(memories, windows, own_vectors, strict=True)]


def chunked(drafts: list[MemoryDraft], size: int) -> list[list[MemoryDraft]]:
    """`drafts` in chunks of `size`, but the last one a quarter of that: the write left to do once
    the last vectors are in is short."""
    tail = min(len(drafts), max(1, size // 4))
    head = len(drafts) - tail
    return [drafts[i:min(i + size, head)] for i in range(0, head, size)] + ([drafts[head:]] if drafts else [])


class MemoryStore:
    def __init__(self, units: MemoryUnits, embedding: DeadlineEmbedder, *, write_timeout_s: float,
                 near_threshold: float, chunk: int = CHUNK) -> None:
        self._units = units
        self._embedding = embedding
        self.write_timeout_s = write_timeout_s
        self._near_threshold = near_threshold
        self.chunk = chunk
        self._since_analyze = 0
        self._table_rows = 0.0
        self._lock = threading.Lock()

    def store(self, drafts: Sequence[MemoryDraft], *, near_dedup: bool,
              field_prefix: str | None = None) -> list[StoreResult]:
        """Clean, embed and write `drafts` in one unit of work; results are in input order."""
        cleaned = self._cleaned(drafts, field_prefix)
        chunks = chunked(cleaned, self.chunk)
        missing = [[i for i, d in enumerate(chunk) if d.embedding is None] for chunk in chunks]
        embedding = self._embedding.embed_chunks(
            [_texts(chunk, m) for chunk, m in zip(chunks, missing, strict=True)], self.write_timeout_s)
        ready: dict[int, list[MemoryDraft]] = {}

        def embedded(k: int) -> list[MemoryDraft]:
            if k not in ready:
                ready[k] = self._with_vectors(chunks[k], missing[k], embedding.get(k))
            return ready[k]

        try:
            if chunks:
                embedded(0)  # the transaction opens once there is something to write
            for attempt in range(1, ATTEMPTS + 1):
                try:
                    with self._units() as uow:
                        batch = self._batch(uow, near_dedup)
                        for k in range(len(chunks)):
                            batch.add(embedded(k))
                        results = self._finish(uow, batch)
                        uow.commit()
                    return results
                except TransientConflict:
                    if attempt == ATTEMPTS:
                        raise
                    get_logger().warning("memory write retried after a deadlock", extra={"attempt": attempt})
            raise AssertionError("unreachable")
        finally:
            embedding.stop()  # a batch that failed embeds nothing more

    def prepare(self, drafts: Sequence[MemoryDraft], *, field_prefix: str | None = None) -> list[MemoryDraft]:
        """Clean every draft and embed the ones without a vector (within the write deadline)."""
        cleaned = self._cleaned(drafts, field_prefix)
        missing = [i for i, draft in enumerate(cleaned) if draft.embedding is None]
        embedded = self._embedding.embed(_texts(cleaned, missing), self.write_timeout_s)
        return self._with_vectors(cleaned, missing, embedded)

    def write(self, uow: MemoryWriteUnit, drafts: Sequence[MemoryDraft], *,
              near_dedup: bool) -> list[StoreResult]:
        """Store prepared drafts inside the caller's unit of work (which commits them).

        Set-based (`BatchWrite`, one chunk): one nearest-neighbour statement per (project,
        category) in the batch, one statement for the batch's own near pairs, one multi-row
        insert; then the duplicates are reinforced. The decisions are those of storing the
        drafts one by one in input order.
        """
        batch = self._batch(uow, near_dedup)
        batch.add(drafts)
        return self._finish(uow, batch)

    def _batch(self, uow: MemoryWriteUnit, near_dedup: bool) -> BatchWrite:
        return BatchWrite(uow.memories, near_dedup=near_dedup, near_threshold=self._near_threshold)

    def _finish(self, uow: MemoryWriteUnit, batch: BatchWrite) -> list[StoreResult]:
        results = batch.finish()
        inserted = batch.inserted
        uow.after_commit(lambda: self._after_write(inserted))
        return results

    def _with_vectors(self, drafts: list[MemoryDraft], missing: list[int],
                      embedded: Embedded) -> list[MemoryDraft]:
        if not embedded.vectors:
            return drafts
        out = list(drafts)
        model = self._embedding.embedder.model
        windows = iter(embedded.vectors[len(missing):])
        for i, vector in zip(missing, embedded.vectors, strict=False):
            chunks = tuple(next(windows) for _ in drafts[i].chunk_texts)
            out[i] = dataclasses.replace(out[i], embedding=vector, embedding_model=model,
                                         chunk_embeddings=chunks)
        return out

    def _cleaned(self, drafts: Sequence[MemoryDraft], prefix: str | None) -> list[MemoryDraft]:
        """Every draft cleaned and keyed; a long one without a vector with its windows."""
        cleaned = keyed([self._clean(draft, i, prefix) for i, draft in enumerate(drafts)], datetime.now(UTC))
        embedder = self._embedding.embedder
        return [d if d.embedding is not None else windows_of(embedder, d) for d in cleaned]

    def _clean(self, draft: MemoryDraft, index: int, prefix: str | None) -> MemoryDraft:
        try:
            cleaned = clean(draft)
        except InvalidInput as exc:
            if prefix is None:
                raise
            field = f"{prefix}.{index}.{exc.field}"
            raise InvalidInput(f"{prefix}.{index}: {exc.message}", field=field) from None
        tags = merge_tags(free_tags(cleaned.metadata, cleaned.tags),
                          auto_tags(cleaned.category, cleaned.files, cleaned.content))
        reason = None if cleaned.trusted else quarantine_reason(cleaned.content)
        if reason:  # a hint for the reviewer
            return dataclasses.replace(cleaned, tags=tags,
                                       metadata={**cleaned.metadata, "quarantine": reason})
        return dataclasses.replace(cleaned, tags=tags)

    def _after_write(self, inserted: int) -> None:
        """Refresh the planner statistics the text score's IDF comes from, once enough changed."""
        with self._lock:
            self._since_analyze += inserted
            due = self._since_analyze >= max(ANALYZE_MIN_ROWS, ANALYZE_SHARE * self._table_rows)
            if due:
                self._since_analyze = 0
        if due:
            with self._units() as uow:
                self._table_rows = uow.search.refresh_statistics()
                uow.commit()

    def embed_pending(self, limit: int) -> int:
        """Embed memories stored while the embedder was down; return how many were done."""
        with self._units() as uow:
            pending = uow.memories.missing_embeddings(limit)
        if not pending:
            return 0
        done = embed_stored(self._embedding.embedder, pending,
                            lambda texts: self._embedding.embed(texts, self.write_timeout_s).vectors)
        if not done:
            return 0
        with self._units() as uow:
            uow.memories.set_embeddings(done, self._embedding.embedder.model)
            uow.commit()
        return len(done)
