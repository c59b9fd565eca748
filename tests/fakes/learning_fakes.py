"""In-memory fakes of the learning loop's ports, over the memory fakes' `MemoryTable`.

`InMemoryLearningUnitOfWork` exposes what `learning_units` binds: the memory core's
repository (the memory fake), the reads of rules and lessons, the lesson bookkeeping, the
extraction records and the idempotency claims. Like every in-memory unit, it does not roll back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from chalicelib.kernel.unit_of_work import InMemoryUnitOfWork
from chalicelib.learning.domain.instruction import INSTRUCTION_CATEGORIES, Instruction, scope_of
from chalicelib.learning.domain.learned_item import LearnedItem
from chalicelib.memory.domain.memory_model import Memory, content_hash
from tests.fakes.memory_fakes import InMemoryMemoryRepository, MemoryTable, cosine

COUNTERS = ("applications", "successes", "failures", "good_feedback", "bad_feedback")


@dataclass
class LearningState:
    """What the learning tables hold: lesson stats and applications, events, extractions, claims."""

    memories: MemoryTable = field(default_factory=MemoryTable)
    stats: dict[str, dict[str, Any]] = field(default_factory=dict)
    applications: list[tuple[str, str]] = field(default_factory=list)  # (task id, lesson id)
    events: list[dict[str, Any]] = field(default_factory=list)
    extractions: dict[str, dict[str, Any]] = field(default_factory=dict)
    claims: set[tuple[str, str]] = field(default_factory=set)


def _item(m: Memory, similarity: float = 0.0, stats: dict[str, Any] | None = None) -> LearnedItem:
    return LearnedItem(id=m.id, project=m.project, category=m.category, content=m.content,
                       confidence=round(m.confidence, 4), times_reinforced=m.times_reinforced,
                       last_reinforced_at=m.last_reinforced_at, created_at=m.created_at, metadata=m.metadata,
                       similarity=similarity, applications=int((stats or {}).get("applications", 0)),
                       last_applied_at=(stats or {}).get("last_applied_at"))


class InMemoryLearnedMemories:
    def __init__(self, state: LearningState) -> None:
        self._s = state

    def _live(self, projects: Sequence[str], category: str, *, trusted_only: bool = True) -> list[Memory]:
        return [r.memory for r in self._s.memories.rows.values() if r.memory.superseded_by is None
                and r.memory.id not in self._s.memories.retired
                and r.memory.project in projects and r.memory.category in category.split("|")
                and (r.memory.trusted or not trusted_only)]

    def _similar(self, projects: Sequence[str], category: str,
                 embedding: Sequence[float]) -> list[LearnedItem]:
        rows = self._s.memories.rows
        found = [_item(m, cosine(rows[m.id].embedding or [], embedding), self._s.stats.get(m.id))
                 for m in self._live(projects, category) if rows[m.id].embedding is not None]
        return sorted(found, key=lambda i: (-i.similarity, i.created_at))

    def nearest(self, project: str, category: str, embedding: Sequence[float]) -> LearnedItem | None:
        return next(iter(self._similar([project], category, embedding)), None)

    def similar_instructions(self, project: str, embedding: Sequence[float], limit: int) -> list[LearnedItem]:
        return self._similar([project], "|".join(INSTRUCTION_CATEGORIES), embedding)[:limit]

    def from_file(self, project: str, path: str) -> list[LearnedItem]:
        return [_item(m) for m in self._live([project], "|".join(INSTRUCTION_CATEGORIES))
                if m.metadata.get("import_path") == path]

    def instructions(self, projects: Sequence[str], as_of: datetime | None, limit: int) -> list[Instruction]:
        if as_of is not None:
            raise NotImplementedError("history is read from Postgres (tests/integration)")
        live = self._live(projects, "|".join(INSTRUCTION_CATEGORIES))
        live.sort(key=lambda m: (m.confidence * m.times_reinforced, m.last_reinforced_at), reverse=True)
        return [Instruction(m.id, m.project, m.category, m.content, scope_of(m.project, m.metadata),
                            str(m.metadata.get("source") or m.source), m.confidence, m.times_reinforced,
                            m.last_reinforced_at, m.created_at, None, None, dict(m.metadata))
                for m in live[:limit]]

    def hash_taken(self, project: str, category: str, content: str) -> bool:
        return self._s.memories.by_hash(project, content_hash(category, content)) is not None

    def rules(self, project: str, limit: int) -> list[LearnedItem]:
        rules = self._live([project], "|".join(INSTRUCTION_CATEGORIES))
        rules.sort(key=lambda m: (m.confidence * m.times_reinforced, m.last_reinforced_at), reverse=True)
        return [_item(m) for m in rules[:limit]]

    def related(self, projects: Sequence[str], category: str, embedding: Sequence[float],
                limit: int) -> list[LearnedItem]:
        return self._similar(projects, category, embedding)[:limit]

    def any_live(self, projects: Sequence[str], category: str) -> bool:
        return bool(self._live(projects, category, trusted_only=False))

    def get(self, memory_id: str, *, for_update: bool = False) -> LearnedItem | None:
        row = self._s.memories.rows.get(memory_id)
        return _item(row.memory) if row else None

    def recent(self, category: str, since_days: int, limit: int) -> list[LearnedItem]:
        since = self._s.memories.clock() - timedelta(days=since_days)
        found = [r.memory for r in self._s.memories.rows.values() if r.memory.category == category
                 and r.memory.superseded_by is None and r.memory.created_at > since]
        found.sort(key=lambda m: (m.confidence, m.created_at), reverse=True)
        return [_item(m) for m in found[:limit]]


class InMemoryLessonBook:
    def __init__(self, state: LearningState) -> None:
        self._s = state

    def ensure_stats(self, lesson_id: str) -> None:
        self._s.stats.setdefault(lesson_id, {**dict.fromkeys(COUNTERS, 0), "last_applied_at": None,
                                             "last_reviewed_at": None})

    def stats(self, lesson_id: str) -> dict[str, Any]:
        return dict(self._s.stats.get(lesson_id) or dict.fromkeys(COUNTERS, 0))

    def count_outcome(self, lesson_id: str, success: bool) -> None:
        self.ensure_stats(lesson_id)
        self._s.stats[lesson_id]["applications"] += 1
        self._s.stats[lesson_id]["successes" if success else "failures"] += 1

    def count_feedback(self, lesson_id: str, good: bool) -> None:
        self.ensure_stats(lesson_id)
        self._s.stats[lesson_id]["good_feedback" if good else "bad_feedback"] += 1

    def record_applications(self, task_id: str, lesson_ids: Sequence[str]) -> None:
        for lesson_id in lesson_ids:
            if (task_id, lesson_id) not in self._s.applications:
                self._s.applications.append((task_id, lesson_id))
            self.ensure_stats(lesson_id)
            self._s.stats[lesson_id]["last_applied_at"] = self._s.memories.clock()

    def applied_to(self, task_id: str) -> list[str]:
        return [lesson_id for task, lesson_id in self._s.applications if task == task_id]

    def log_event(self, lesson_id: str, kind: str, before: float, after: float,
                  task_id: str | None = None) -> None:
        self._s.events.append({"lesson_id": lesson_id, "kind": kind, "task_id": task_id,
                               "confidence_before": before, "confidence_after": after})

    def due_for_review(self, min_applications: int, not_since_days: int) -> list[dict[str, Any]]:
        cutoff = self._s.memories.clock() - timedelta(days=not_since_days)
        rows = self._s.memories.rows
        due = []
        for lesson_id, stats in sorted(self._s.stats.items()):
            row = rows.get(lesson_id)
            reviewed: datetime | None = stats.get("last_reviewed_at")
            if row and row.memory.superseded_by is None and stats["applications"] >= min_applications \
                    and (reviewed is None or reviewed < cutoff):
                due.append({"lesson_id": lesson_id, "applications": stats["applications"],
                            "successes": stats["successes"], "confidence": row.memory.confidence})
        return due

    def mark_reviewed(self, lesson_id: str) -> None:
        self._s.stats[lesson_id]["last_reviewed_at"] = self._s.memories.clock()


class InMemorySessionExtractions:
    def __init__(self, state: LearningState) -> None:
        self._s = state

    def get(self, session_id: str) -> dict[str, Any] | None:
        stored = self._s.extractions.get(session_id)
        return dict(stored) if stored is not None else None

    def save(self, session_id: str, project: str, extractor: str, significance: float,
             result: dict[str, Any]) -> bool:
        if session_id in self._s.extractions:
            return False
        self._s.extractions[session_id] = dict(result)
        return True


class InMemoryClaims:
    def __init__(self, claimed: set[tuple[str, str]]) -> None:
        self._claimed = claimed

    def claim(self, consumer: str, key: str) -> bool:
        if (consumer, key) in self._claimed:
            return False
        self._claimed.add((consumer, key))
        return True


class InMemoryLearningUnitOfWork(InMemoryUnitOfWork):
    def __init__(self, state: LearningState) -> None:
        super().__init__()
        self.memories = InMemoryMemoryRepository(state.memories)
        self.learned = InMemoryLearnedMemories(state)
        self.lessons = InMemoryLessonBook(state)
        self.extractions = InMemorySessionExtractions(state)
        self.claims = InMemoryClaims(state.claims)


def in_memory_learning_units(state: LearningState) -> Callable[[], InMemoryLearningUnitOfWork]:
    return lambda: InMemoryLearningUnitOfWork(state)
