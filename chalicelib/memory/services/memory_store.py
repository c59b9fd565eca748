"""The one write path of memories: clean, embed, deduplicate and store.

`prepare` cleans drafts (redaction and caps, `memory_hygiene.clean`) and embeds those that
came without a vector, outside any transaction; `write` stores prepared drafts inside the
caller's unit of work. For each draft, as if stored one by one in input order (so a batch
deduplicates against itself too): a live memory of the same project and category with the same
content hash, or at least
`near_threshold` cosine-similar and stating the same facts, is reinforced; otherwise the row is
inserted (an exact duplicate the vector search did not reach is reinforced by the repository).
`store` does both in a unit of its own, retried when it loses a deadlock. When the embedder
fails or misses the write deadline, memories are stored without a vector (full-text search
still finds them) and `embed_pending` fills the vectors in later.

The learning loop writes its insights, rules, lessons and strategy documents through `prepare`
and `write`, inside its own units (their repositories include this capability's).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from typing import Literal

from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.logging import get_logger
from chalicelib.memory.domain.dedup_guard import same_facts
from chalicelib.memory.domain.memory_hygiene import clean
from chalicelib.memory.domain.memory_model import MemoryDraft, StoreResult, content_hash, embedding_text
from chalicelib.memory.domain.memory_tags import auto_tags, free_tags, merge_tags
from chalicelib.memory.domain.provenance import carries_instructions
from chalicelib.memory.services.deadline_embedding import DeadlineEmbedder
from chalicelib.memory.services.ports import MemoryRepository, MemoryUnits, MemoryWriteUnit, TransientConflict

Kind = Literal["exact", "near"]
NEAREST = 5  # neighbours a draft is compared with, most similar first
ATTEMPTS = 3  # a deadlock between two batches reinforcing the same rows is retried
ANALYZE_MIN_ROWS = 200  # refresh the full-text statistics after this many new rows...
ANALYZE_SHARE = 0.1  # ...or this share of the table, whichever is larger


class MemoryStore:
    def __init__(self, units: MemoryUnits, embedding: DeadlineEmbedder, *, write_timeout_s: float,
                 near_threshold: float) -> None:
        self._units = units
        self._embedding = embedding
        self.write_timeout_s = write_timeout_s
        self._near_threshold = near_threshold
        self._since_analyze = 0
        self._table_rows = 0.0
        self._lock = threading.Lock()

    def store(self, drafts: Sequence[MemoryDraft], *, near_dedup: bool,
              field_prefix: str | None = None) -> list[StoreResult]:
        """Prepare and write `drafts` in one unit of work; results are in input order."""
        prepared = self.prepare(drafts, field_prefix=field_prefix)
        for attempt in range(1, ATTEMPTS + 1):
            try:
                with self._units() as uow:
                    results = self.write(uow, prepared, near_dedup=near_dedup)
                    uow.commit()
                return results
            except TransientConflict:
                if attempt == ATTEMPTS:
                    raise
                get_logger().warning("memory write retried after a deadlock", extra={"attempt": attempt})
        raise AssertionError("unreachable")

    def prepare(self, drafts: Sequence[MemoryDraft], *, field_prefix: str | None = None) -> list[MemoryDraft]:
        """Clean every draft and embed the ones without a vector (within the write deadline)."""
        cleaned = [self._clean(draft, i, field_prefix) for i, draft in enumerate(drafts)]
        missing = [i for i, draft in enumerate(cleaned) if draft.embedding is None]
        embedded = self._embedding.embed([cleaned[i].embedding_text for i in missing], self.write_timeout_s)
        if embedded.vectors:
            model = self._embedding.embedder.model
            for i, vector in zip(missing, embedded.vectors, strict=True):
                cleaned[i] = dataclasses.replace(cleaned[i], embedding=vector, embedding_model=model)
        return cleaned

    def write(self, uow: MemoryWriteUnit, drafts: Sequence[MemoryDraft], *,
              near_dedup: bool) -> list[StoreResult]:
        """Store prepared drafts inside the caller's unit of work (which commits them).

        Set-based: one nearest-neighbour statement per (project, category) in the batch, one
        statement for the batch's own near pairs, one multi-row insert; then the duplicates are
        reinforced. The decisions are those of storing the drafts one by one in input order.
        """
        memories = uow.memories
        near = self._neighbours(memories, drafts) if near_dedup else {}
        kept: dict[tuple[str, str], int] = {}  # (project, content hash) -> index of the kept draft
        merged: dict[int, tuple[int | str, Kind]] = {}  # index -> (kept index or memory id, reason)
        live: set[int] = set()
        for j, draft in enumerate(drafts):
            key = (draft.project, draft.content_hash)
            if key in kept:
                merged[j] = (kept[key], "exact")
                continue
            found = self._duplicate_of(draft, near.get(j, ()), live)
            if found is not None:
                merged[j] = found
            else:
                kept[key] = j
                live.add(j)
        order = list(kept.values())
        results: dict[int, StoreResult] = {}
        stored = memories.insert_many([drafts[i] for i in order])
        for i, (memory_id, inserted) in zip(order, stored, strict=True):
            results[i] = StoreResult(memory_id, not inserted, None if inserted else "exact")
        targets = {j: results[ref].id if isinstance(ref, int) else ref for j, (ref, _) in merged.items()}
        for j in sorted(merged, key=lambda j: (targets[j], j)):  # one lock order for every batch
            memories.reinforce(targets[j], drafts[j].created_at)
            results[j] = StoreResult(targets[j], True, merged[j][1])
        inserted_count = sum(1 for r in results.values() if not r.deduplicated)
        uow.after_commit(lambda: self._after_write(inserted_count))
        return [results[j] for j in range(len(drafts))]

    def _neighbours(self, memories: MemoryRepository,
                    drafts: Sequence[MemoryDraft]) -> dict[int, list[tuple[float, int | str, str, str]]]:
        """Per draft: (similarity, earlier draft index or memory id, category, content) of everything
        at least `near_threshold` similar in its project and category, stored or earlier in the batch."""
        groups: dict[tuple[str, str], list[int]] = {}
        for i, draft in enumerate(drafts):
            if draft.embedding is not None:
                groups.setdefault((draft.project, draft.category), []).append(i)
        out: dict[int, list[tuple[float, int | str, str, str]]] = {}
        for (project, category), members in groups.items():
            vectors = [drafts[i].embedding or () for i in members]
            stored = memories.nearest_many(project, category, vectors, min_similarity=self._near_threshold)
            for i, hits in zip(members, stored, strict=True):
                out[i] = [(h.similarity, h.memory.id, h.memory.category, h.memory.content) for h in hits]
            for a, b, similarity in memories.similar_pairs(vectors, self._near_threshold):
                earlier = drafts[members[a]]
                out.setdefault(members[b], []).append(
                    (similarity, members[a], earlier.category, earlier.content))
        return out

    def _duplicate_of(self, draft: MemoryDraft, near: Sequence[tuple[float, int | str, str, str]],
                      live: set[int]) -> tuple[int | str, Kind] | None:
        """The memory (or kept earlier draft) `draft` reinforces, with the reason; None to insert it."""
        candidates = sorted((c for c in near if not isinstance(c[1], int) or c[1] in live),
                            key=lambda c: -c[0])
        for _, ref, category, content in candidates[:NEAREST]:
            exact = content_hash(category, content) == draft.content_hash
            if exact or same_facts(content, draft.content):
                return ref, "exact" if exact else "near"
        return None

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
        if not cleaned.trusted and carries_instructions(cleaned.content):  # a hint for the reviewer
            return dataclasses.replace(cleaned, tags=tags,
                                       metadata={**cleaned.metadata, "quarantine": "carries instructions"})
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
        embedded = self._embedding.embed([embedding_text(c, s) for _, c, s in pending], self.write_timeout_s)
        if embedded.vectors is None:
            return 0
        with self._units() as uow:
            done = [(memory_id, v) for (memory_id, _, _), v in zip(pending, embedded.vectors, strict=True)]
            uow.memories.set_embeddings(done, self._embedding.embedder.model)
            uow.commit()
        return len(pending)
