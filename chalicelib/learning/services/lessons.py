"""Lessons: promoted from significant sessions, then strengthened or weakened by what happens.

- `promote` stores an insight as a `task_lesson` memory at confidence 0.7 (inside the
  caller's transaction); the same lesson promoted again is reinforced instead.
- `record_outcome` applies a task's success (+0.10) or failure (-0.15) to the lessons its
  prompt carried. It is idempotent per task id (per task id and attempt when one is given):
  the claim is recorded in the same transaction as the confidence changes.
- `feedback` applies a user's good/bad verdict (+/-0.10) to one lesson or rule.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from chalicelib.kernel import idempotency as idempotency_repository
from chalicelib.kernel.database import Database
from chalicelib.kernel.errors import InvalidInput, NotFound
from chalicelib.learning.adapters.learning_memory_repository import Conn, LearningMemoryRepository, NewMemory
from chalicelib.learning.adapters.lesson_repository import LessonRepository
from chalicelib.learning.domain import lesson_confidence
from chalicelib.learning.domain.insights import Insight

CATEGORY = "task_lesson"
RATED_CATEGORIES = frozenset({"task_lesson", "project_rule"})


class Lessons:
    def __init__(self, db: Database, memories: LearningMemoryRepository | None = None,
                 repo: LessonRepository | None = None) -> None:
        self._db = db
        self._memories = memories or LearningMemoryRepository()
        self._repo = repo or LessonRepository()

    def promote(self, conn: Conn, project: str, insight: Insight, kind: str, embedding: list[float],
                embedding_model: str, *, session_id: str, significance: float) -> str:
        lesson_id, created = self._memories.insert(conn, NewMemory(
            project=project, category=CATEGORY, content=insight.content, embedding=embedding,
            embedding_model=embedding_model, significance=significance,
            confidence=lesson_confidence.INITIAL,
            metadata={"lesson_kind": kind, "insight_category": insight.category, "source": "session",
                      "transcript_lines": list(insight.lines)},
            session_id=session_id, source_ids=tuple(f"line:{n}" for n in insight.lines)))
        if created:
            self._repo.ensure_stats(conn, lesson_id)
        else:
            current = self._memories.get(conn, lesson_id)
            self._memories.reinforce(conn, lesson_id, CATEGORY,
                                     confidence=current.confidence if current else lesson_confidence.INITIAL)
        return lesson_id

    def record_outcome(self, task_id: str, project: str, success: bool,
                       lesson_ids: Sequence[str] | None = None, attempt: int | None = None) -> dict[str, Any]:
        """Move the confidence of the task's lessons; a repeated call changes nothing."""
        key = task_id if attempt is None else f"{task_id}#{attempt}"
        with self._db.connection() as conn:
            if not idempotency_repository.claim(conn, "lesson-outcome", key):
                return {"task_id": task_id, "recorded": False, "lessons": []}
            ids = list(dict.fromkeys(lesson_ids)) if lesson_ids is not None else self._repo.applied_to(
                conn, task_id)
            changes = []
            for lesson_id in ids:
                item = self._memories.get(conn, lesson_id, for_update=True)
                if item is None or item.category not in RATED_CATEGORIES:
                    continue
                after = lesson_confidence.after_outcome(item.confidence, success)
                self._memories.set_confidence(conn, lesson_id, after)
                self._repo.count_outcome(conn, lesson_id, success)
                self._repo.log_event(conn, lesson_id, "success" if success else "failure",
                                     item.confidence, after, task_id)
                changes.append({"id": lesson_id, "confidence_before": item.confidence,
                                "confidence": after})
        return {"task_id": task_id, "project": project, "recorded": True, "lessons": changes}

    def feedback(self, lesson_id: str, good: bool) -> dict[str, Any]:
        with self._db.connection() as conn:
            item = self._memories.get(conn, lesson_id, for_update=True)
            if item is None or item.category not in RATED_CATEGORIES:
                raise NotFound(f"no lesson or rule {lesson_id}")
            after = lesson_confidence.after_feedback(item.confidence, good)
            self._memories.set_confidence(conn, lesson_id, after)
            self._repo.count_feedback(conn, lesson_id, good)
            self._repo.log_event(conn, lesson_id, "feedback_good" if good else "feedback_bad",
                                 item.confidence, after)
        return {"id": lesson_id, "category": item.category, "confidence_before": item.confidence,
                "confidence": after}

    def get(self, lesson_id: str) -> dict[str, Any]:
        with self._db.connection() as conn:
            item = self._memories.get(conn, lesson_id)
            if item is None or item.category not in RATED_CATEGORIES:
                raise NotFound(f"no lesson or rule {lesson_id}")
            stats = self._repo.stats(conn, lesson_id)
        return {"id": item.id, "project": item.project, "category": item.category,
                "content": item.content, "confidence": item.confidence,
                "times_reinforced": item.times_reinforced,
                "lesson_kind": item.metadata.get("lesson_kind"),
                **{k: int(stats.get(k) or 0) for k in ("applications", "successes", "failures",
                                                      "good_feedback", "bad_feedback")}}


def validate_ids(ids: Sequence[str]) -> list[str]:
    """Lesson ids are memory UUIDs; anything else is a 400, not a database error."""
    try:
        return [str(uuid.UUID(i)) for i in ids]
    except ValueError:
        raise InvalidInput("lesson_ids must be lesson ids (UUIDs)", field="lesson_ids") from None
