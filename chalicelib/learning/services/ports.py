"""What the learning loop needs from the rest of the system, stated narrowly.

Its unit of work binds, to one transaction, the memory core's repository (every rule, lesson,
insight and strategy document is written through the memory core's write path, `MemoryWriter`),
the learning loop's reads of rules and lessons, the lesson bookkeeping, the record of each
session's extraction and the idempotency claims: a session's insights, rules, lessons and claim
commit together. The memory core also provides the embedder (`TextEmbedder`); `Redact` is the
secret redaction. Similarities are cosine similarities in [-1, 1].
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

from chalicelib.kernel.unit_of_work import Claims, UnitOfWork
from chalicelib.learning.domain.instruction import Instruction
from chalicelib.learning.domain.learned_item import LearnedItem
from chalicelib.learning.domain.rule_levels import Override
from chalicelib.memory.domain.memory_model import MemoryDraft, StoreResult
from chalicelib.memory.services.ports import MemoryRepository, MemoryWriteUnit

Redact = Callable[[str], str]


class TextEmbedder(Protocol):
    @property
    def model(self) -> str:
        """The embedding model's name, stored with each vector."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text, in order."""
        ...


class MemoryWriter(Protocol):
    """The memory core's write path (`MemoryStore`)."""

    def prepare(self, drafts: Sequence[MemoryDraft], *, field_prefix: str | None = None) -> list[MemoryDraft]:
        """Cleaned drafts (redacted, capped), embedded unless they carry their vector."""
        ...

    def write(self, uow: MemoryWriteUnit, drafts: Sequence[MemoryDraft], *,
              near_dedup: bool) -> list[StoreResult]:
        """Store prepared drafts in `uow` (an exact duplicate reinforces the memory it repeats)."""
        ...


class LearnedMemories(Protocol):
    """Rules and lessons as the learning loop reads them (live ones: not superseded)."""

    def nearest(self, project: str, category: str, embedding: Sequence[float]) -> LearnedItem | None:
        """The live memory of (project, category) closest to `embedding`, computed exactly."""
        ...

    def similar_instructions(self, project: str, embedding: Sequence[float], limit: int) -> list[LearnedItem]:
        """The project's live trusted rules and guidelines closest to `embedding`, best first."""
        ...

    def graph_nodes_held(self, node_ids: Sequence[str]) -> dict[str, str | None]:
        """Of the graph nodes `node_ids`, those a rule was stated from: its live rule's id, if any."""
        ...

    def open_clashes(self, project: str | None, limit: int) -> list[LearnedItem]:
        """Flagged rules (`metadata.contradicts`) not settled yet, newest first."""
        ...

    def flagged_from_node(self, node_id: str) -> LearnedItem | None:
        """The open flagged rule a prompt stated as graph node `node_id`."""
        ...

    def from_file(self, project: str, path: str) -> list[LearnedItem]:
        """The live rules and guidelines imported from the file `path` of a project."""
        ...

    def instructions(self, projects: Sequence[str] | None, as_of: datetime | None,
                     limit: int) -> list[Instruction]:
        """Trusted rules and guidelines of `projects` (None: every project) live now (or at `as_of`),
        strongest first."""
        ...

    def hash_taken(self, project: str, category: str, content: str) -> bool: ...

    def rules(self, project: str, limit: int) -> list[LearnedItem]:
        """Live rules by confidence x times_reinforced, then the most recently reinforced."""
        ...

    def overrides(self, project: str, scopes: Sequence[str], min_similarity: float) -> list[Override]:
        """The live rules of `scopes` a live rule of `project` more than `min_similarity` alike overrides."""
        ...

    def related(self, projects: Sequence[str], category: str, embedding: Sequence[float],
                limit: int) -> list[LearnedItem]:
        """Live memories of a category in `projects`, most similar first, with their lesson stats."""
        ...

    def any_live(self, projects: Sequence[str], category: str) -> bool: ...

    def get(self, memory_id: str, *, for_update: bool = False) -> LearnedItem | None: ...

    def recent(self, category: str, since_days: int, limit: int) -> list[LearnedItem]:
        """Live memories of a category created in the last `since_days`, most confident first."""
        ...


class LessonBook(Protocol):
    """Lesson bookkeeping: counters, applications to tasks, confidence events, reviews."""

    def ensure_stats(self, lesson_id: str) -> None: ...

    def stats(self, lesson_id: str) -> dict[str, Any]: ...

    def count_outcome(self, lesson_id: str, success: bool) -> None: ...

    def count_feedback(self, lesson_id: str, good: bool) -> None: ...

    def record_applications(self, task_id: str, lesson_ids: Sequence[str]) -> None: ...

    def applied_to(self, task_id: str) -> list[str]: ...

    def log_event(self, lesson_id: str, kind: str, before: float, after: float,
                  task_id: str | None = None) -> None: ...

    def due_for_review(self, min_applications: int, not_since_days: int) -> list[dict[str, Any]]:
        """{lesson_id, applications, successes, confidence} of lessons due, locked until commit."""
        ...

    def mark_reviewed(self, lesson_id: str) -> None: ...


class SessionExtractions(Protocol):
    def get(self, session_id: str) -> dict[str, Any] | None: ...

    def save(self, session_id: str, project: str, extractor: str, significance: float,
             result: dict[str, Any]) -> bool: ...


class LearningUnitOfWork(UnitOfWork, Protocol):
    """The repositories bound to the unit's transaction, as attributes."""

    memories: MemoryRepository
    learned: LearnedMemories
    lessons: LessonBook
    extractions: SessionExtractions
    claims: Claims


LearningUnits = Callable[[], LearningUnitOfWork]
