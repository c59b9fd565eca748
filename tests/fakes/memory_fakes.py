"""In-memory fakes of the memory core's ports: the repository, the search index, the unit of work.

`MemoryTable` plays the `memories` table (and `memory_access`); the repository and the search
read and write it like their Postgres twins do, and pass the same contract tests
(tests/integration/memory/test_memory_repository_contract.py). The search scores with the
formula stated in `search_scoring` (`fused_score` below; the real score is computed only in
SQL, whose ranking is tested on its own), except that every query term weighs the same
(Postgres weighs them by IDF once the table has statistics), and it scans instead of using an
index.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from chalicelib.kernel.unit_of_work import InMemoryUnitOfWork
from chalicelib.memory.domain import memory_model as model
from chalicelib.memory.domain.search_scoring import SearchWeights
from chalicelib.memory.services.ports import DuplicateContent

_TERM = re.compile(r"\w+")


def fused_score(cosine: float | None, coverage: float, age_days: float, weights: SearchWeights,
                mode: str = "hybrid") -> float:
    """The search score of `search_scoring`'s docstring, for the fake index."""
    vector = min(1.0, max(0.0, cosine or 0.0))
    hybrid = weights.vector * vector + weights.text * coverage
    relevance = {"text": coverage, "vector": vector}.get(mode, hybrid)
    decay = 0.5 ** (max(0.0, age_days) / weights.half_life_days)
    return relevance * (1.0 - weights.recency + weights.recency * decay)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return dot / norm if norm else 0.0


@dataclass
class Row:
    memory: model.Memory
    content_hash: str
    embedding: list[float] | None
    seq: int


@dataclass
class MemoryTable:
    """The rows, in insertion order, and a clock (tests may move it)."""

    rows: dict[str, Row] = field(default_factory=dict)
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    _seq: itertools.count = field(default_factory=itertools.count)  # type: ignore[type-arg]
    retired: set[str] = field(default_factory=set)  # memories no longer live, with no successor

    def live(self) -> list[Row]:
        return [r for r in self.rows.values() if r.memory.superseded_by is None and r.memory.phase < 3
                and r.memory.id not in self.retired]

    def by_hash(self, project: str, content_hash: str) -> Row | None:
        return next((r for r in self.rows.values()
                     if r.memory.project == project and r.content_hash == content_hash), None)

    def update(self, memory_id: str, **changes: Any) -> None:
        row = self.rows[memory_id]
        row.memory = dataclasses.replace(row.memory, **changes)

    def add(self, draft: model.MemoryDraft) -> str:
        now = self.clock()
        memory_id = str(uuid.uuid4())
        self.rows[memory_id] = Row(model.Memory(
            id=memory_id, project=draft.project, category=draft.category, content=draft.content,
            summary=draft.summary, files=draft.files, metadata=dict(draft.metadata),
            significance=0.5 if draft.significance is None else draft.significance,
            confidence=0.5 if draft.confidence is None else draft.confidence, times_reinforced=1,
            last_reinforced_at=draft.created_at or now, access_count=0, last_accessed_at=None, phase=0,
            superseded_by=None, session_id=draft.session_id, source_ids=draft.source_ids,
            created_at=draft.created_at or now, updated_at=now, embedding_model=draft.embedding_model,
            tags=draft.tags, source=draft.source, trusted=draft.trusted,
        ), draft.content_hash, None if draft.embedding is None else list(draft.embedding), next(self._seq))
        return memory_id


class InMemoryMemoryRepository:
    def __init__(self, table: MemoryTable) -> None:
        self._t = table

    def insert(self, draft: model.MemoryDraft) -> tuple[str, bool]:
        existing = self._t.by_hash(draft.project, draft.content_hash)
        if existing is None:
            return self._t.add(draft), True
        self.reinforce(existing.memory.id, draft.created_at)
        return existing.memory.id, False

    def insert_many(self, drafts: Sequence[model.MemoryDraft]) -> list[tuple[str, bool]]:
        return [self.insert(d) for d in drafts]

    def nearest_many(self, project: str, category: str, embeddings: Sequence[Sequence[float]], *,
                     min_similarity: float, limit: int = 5) -> list[list[model.SimilarMemory]]:
        return [[s for s in self.nearest(project, category, e, limit) if s.similarity >= min_similarity]
                for e in embeddings]

    def similar_pairs(self, embeddings: Sequence[Sequence[float]], min_similarity: float, *,
                      first: int = 0) -> list[tuple[int, int, float]]:
        pairs = [(i, j, cosine(embeddings[i], embeddings[j]))
                 for j in range(first, len(embeddings)) for i in range(j)]
        return [p for p in pairs if p[2] >= min_similarity]

    def nearest(self, project: str, category: str, embedding: Sequence[float],
                limit: int = 5) -> list[model.SimilarMemory]:
        return self.similar(project, category, embedding, -1.0, limit)

    def similar(self, project: str, category: str | None, embedding: Sequence[float], threshold: float,
                limit: int) -> list[model.SimilarMemory]:
        found = [model.SimilarMemory(r.memory, cosine(r.embedding, embedding)) for r in self._t.live()
                 if r.memory.project == project and category in (None, r.memory.category)
                 and r.embedding is not None]
        found = [s for s in found if s.similarity >= threshold]
        return sorted(found, key=lambda s: -s.similarity)[:limit]

    def stating(self, project: str, category: str, words: Sequence[Sequence[str]], *,
                limit: int = 8) -> list[list[model.Memory]]:
        rows = sorted((r.memory for r in self._t.live()
                       if r.memory.project == project and r.memory.category == category),
                      key=lambda m: m.created_at, reverse=True)
        out = []
        for wanted in words:
            held = [(sum(w in m.content.lower() for w in wanted), m) for m in rows]
            out.append([m for n, m in sorted(held, key=lambda h: -h[0]) if n][:limit])
        return out

    def mark_updated(self, pairs: Sequence[tuple[str, str]]) -> None:
        for older, newer in pairs:
            if (row := self._t.rows.get(older)) is not None \
                    and row.memory.metadata.get("updated_by") not in self._t.rows:
                self._t.update(older, metadata={**row.memory.metadata, "updated_by": newer})

    def reinforce(self, memory_id: str, seen_at: datetime | None = None) -> bool:
        row = self._t.rows.get(memory_id)
        if row is None:
            return False
        self._t.update(memory_id, times_reinforced=row.memory.times_reinforced + 1,
                       last_reinforced_at=max(row.memory.last_reinforced_at, seen_at or self._t.clock()))
        return True

    def get(self, memory_id: str) -> model.Memory | None:
        row = self._t.rows.get(memory_id)
        return row.memory if row else None

    def record_access(self, memory_ids: Sequence[str], *, throttled: bool) -> None:
        now = self._t.clock()
        for memory_id in memory_ids:
            row = self._t.rows.get(memory_id)
            last = row.memory.last_accessed_at if row else None
            if row and (not throttled or last is None or (now - last).total_seconds() >= 600):
                self._t.update(memory_id, access_count=row.memory.access_count + 1, last_accessed_at=now)

    def recent(self, project: str | None, category: str | None, limit: int,
               metadata: dict[str, Any] | None = None, include_untrusted: bool = False) -> list[model.Memory]:
        found = [r.memory for r in self._t.live() if project in (None, r.memory.project)
                 and (include_untrusted or r.memory.trusted)
                 and category in (None, r.memory.category) and _contains(r.memory.metadata, metadata)]
        found.sort(key=lambda m: m.id)
        return sorted(found, key=lambda m: m.created_at, reverse=True)[:limit]

    def stats(self, project: str | None) -> model.MemoryStats:
        rows = [r for r in self._t.rows.values() if project in (None, r.memory.project)]
        by_category: dict[str, int] = {}
        for r in sorted(rows, key=lambda r: r.memory.category):
            by_category[r.memory.category] = by_category.get(r.memory.category, 0) + 1
        created = [r.memory.created_at for r in rows]
        return model.MemoryStats(project=project, total=len(rows), by_category=by_category,
                           with_embedding=sum(r.embedding is not None for r in rows),
                           reinforced=sum(r.memory.times_reinforced > 1 for r in rows),
                           oldest=min(created, default=None), newest=max(created, default=None))

    def delete(self, memory_ids: Sequence[str]) -> int:
        return sum(self._t.rows.pop(memory_id, None) is not None for memory_id in memory_ids)

    def update_content(self, memory_id: str, *, content: str, summary: str | None, content_hash: str) -> bool:
        row = self._t.rows.get(memory_id)
        if row is None:
            return False
        other = self._t.by_hash(row.memory.project, content_hash)
        if other is not None and other is not row:
            raise DuplicateContent(content_hash)
        row.content_hash = content_hash
        row.embedding = None
        self._t.update(memory_id, content=content, summary=row.memory.summary if summary is None else summary,
                       embedding_model=None, updated_at=self._t.clock())
        return True

    def update_fields(self, memory_id: str, *, metadata: dict[str, Any] | None = None, merge: bool = True,
                      significance: float | None = None, confidence: float | None = None,
                      superseded_by: str | None = None) -> bool:
        row = self._t.rows.get(memory_id)
        if row is None:
            return False
        m = row.memory
        new_metadata = m.metadata if metadata is None else ({**m.metadata, **metadata} if merge else metadata)
        self._t.update(memory_id, metadata=dict(new_metadata), updated_at=self._t.clock(),
                       significance=m.significance if significance is None else significance,
                       confidence=m.confidence if confidence is None else confidence,
                       superseded_by=superseded_by or m.superseded_by)
        return True

    def promote(self, memory_id: str, by: str) -> bool:
        row = self._t.rows.get(memory_id)
        if row is None:
            return False
        self._t.update(memory_id, trusted=True, promoted_at=row.memory.promoted_at or self._t.clock(),
                       promoted_by=row.memory.promoted_by or by, updated_at=self._t.clock())
        return True

    def revive(self, memory_id: str) -> bool:
        if memory_id not in self._t.rows:
            return False
        self._t.update(memory_id, superseded_by=None, updated_at=self._t.clock())
        self._t.retired.discard(memory_id)
        return True

    def retire(self, memory_id: str) -> bool:
        if memory_id not in self._t.rows:
            return False
        self._t.retired.add(memory_id)
        return True

    def chunks_of(self, project: str, source_path: str) -> list[tuple[str, str, str | None]]:
        return [(r.memory.id, r.content_hash, r.memory.metadata.get("file_hash"))
                for r in self._t.rows.values()
                if r.memory.project == project and r.memory.metadata.get("source_path") == source_path]

    def missing_embeddings(self, limit: int) -> list[tuple[str, str, str]]:
        rows = sorted((r for r in self._t.rows.values() if r.embedding is None),
                      key=lambda r: r.memory.created_at, reverse=True)
        return [(r.memory.id, r.memory.content, r.memory.summary) for r in rows[:limit]]

    def set_embeddings(self, items: Sequence[model.StoredVectors], embedding_model: str) -> None:
        for item in items:  # the fake searches by each memory's own vector: its windows are not kept
            if item.memory_id in self._t.rows:
                self._t.rows[item.memory_id].embedding = list(item.embedding)
                self._t.update(item.memory_id, embedding_model=embedding_model)


class InMemorySearchIndex:
    def __init__(self, table: MemoryTable) -> None:
        self._t = table

    def search(self, query: str, embedding: Sequence[float] | None, scope: model.SearchScope, *,
               mode: model.SearchMode, limit: int, weights: SearchWeights) -> list[model.SearchHit]:
        if mode != "text" and embedding is None:
            raise ValueError("a vector search needs the query embedding")
        terms = set(_TERM.findall(query.lower()))
        now = self._t.clock()
        scored = []
        for r in self._t.live():
            m = r.memory
            if m.project not in scope.projects or scope.category not in (None, m.category) \
                    or not _contains(m.metadata, scope.metadata) \
                    or (scope.tag is not None and scope.tag not in m.tags) \
                    or not (scope.include_untrusted or m.trusted):
                continue
            held = terms & set(_TERM.findall(f"{m.summary} {m.content}".lower()))
            vector = cosine(r.embedding, embedding) if embedding is not None and r.embedding else None
            if not held and (mode == "text" or vector is None):
                continue
            age = (now - max(m.created_at, m.last_reinforced_at)).total_seconds() / 86400
            score = fused_score(vector, len(held) / len(terms) if terms else 0.0, age, weights, mode)
            scored.append((round(score, 6), m))
        scored.sort(key=lambda s: (-s[0], -s[1].created_at.timestamp(), s[1].id))
        return [model.SearchHit(id=m.id, project=m.project, category=m.category, content=m.content,
                          summary=m.summary, score=score, created_at=m.created_at, metadata=m.metadata,
                          files=m.files, source=m.source, trusted=m.trusted,
                          confirmed_at=max(m.last_reinforced_at, m.promoted_at or m.last_reinforced_at))
                for score, m in scored[:limit]]

    def refresh_statistics(self) -> float:
        return float(len(self._t.rows))


class InMemoryMemoryUnitOfWork(InMemoryUnitOfWork):
    def __init__(self, table: MemoryTable) -> None:
        super().__init__()
        self.memories = InMemoryMemoryRepository(table)
        self.search = InMemorySearchIndex(table)


def in_memory_units(table: MemoryTable | None = None) -> Callable[[], InMemoryMemoryUnitOfWork]:
    shared = table or MemoryTable()
    return lambda: InMemoryMemoryUnitOfWork(shared)


def _contains(metadata: dict[str, Any], subset: dict[str, Any] | None) -> bool:
    return not subset or all(metadata.get(k) == v for k, v in subset.items())
