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

from chalicelib.kernel.errors import InvalidInput, NotFound
from chalicelib.learning.domain import lesson_confidence
from chalicelib.learning.domain.insights import Insight
from chalicelib.learning.services.ports import LearningUnitOfWork, LearningUnits, MemoryWriter
from chalicelib.memory.domain.memory_model import MemoryDraft

CATEGORY = "task_lesson"
RATED_CATEGORIES = frozenset({"task_lesson", "project_rule"})


class Lessons:
    def __init__(self, units: LearningUnits, memory: MemoryWriter) -> None:
        self._units = units
        self._memory = memory

    def promote(self, uow: LearningUnitOfWork, project: str, insight: Insight, kind: str,
                embedding: list[float], embedding_model: str, *, session_id: str, significance: float,
                source: str = "session") -> str:
        """Store the insight as a lesson inside the caller's unit of work (the same lesson again is
        reinforced by the memory core's write path)."""
        draft = MemoryDraft(
            project=project, category=CATEGORY, content=insight.content, embedding=embedding,
            embedding_model=embedding_model, significance=significance, confidence=lesson_confidence.INITIAL,
            metadata={"lesson_kind": kind, "insight_category": insight.category, "source": source,
                      "transcript_lines": list(insight.lines)},
            session_id=session_id, source_ids=tuple(f"line:{n}" for n in insight.lines))
        (stored,) = self._memory.write(uow, self._memory.prepare([draft]), near_dedup=False)
        if not stored.deduplicated:
            uow.lessons.ensure_stats(stored.id)
        return stored.id

    def record_outcome(self, task_id: str, project: str, success: bool,
                       lesson_ids: Sequence[str] | None = None, attempt: int | None = None) -> dict[str, Any]:
        """Move the confidence of the task's lessons; a repeated call changes nothing."""
        key = task_id if attempt is None else f"{task_id}#{attempt}"
        with self._units() as uow:
            if not uow.claims.claim("lesson-outcome", key):
                return {"task_id": task_id, "recorded": False, "lessons": []}
            ids = uow.lessons.applied_to(task_id) if lesson_ids is None else list(dict.fromkeys(lesson_ids))
            changes = []
            for lesson_id in ids:
                item = uow.learned.get(lesson_id, for_update=True)
                if item is None or item.category not in RATED_CATEGORIES:
                    continue
                after = lesson_confidence.after_outcome(item.confidence, success)
                uow.memories.update_fields(lesson_id, confidence=after)
                uow.lessons.count_outcome(lesson_id, success)
                uow.lessons.log_event(lesson_id, "success" if success else "failure", item.confidence, after,
                                      task_id)
                changes.append({"id": lesson_id, "confidence_before": item.confidence, "confidence": after})
            uow.commit()
        return {"task_id": task_id, "project": project, "recorded": True, "lessons": changes}

    def feedback(self, lesson_id: str, good: bool) -> dict[str, Any]:
        with self._units() as uow:
            item = uow.learned.get(lesson_id, for_update=True)
            if item is None or item.category not in RATED_CATEGORIES:
                raise NotFound(f"no lesson or rule {lesson_id}")
            after = lesson_confidence.after_feedback(item.confidence, good)
            uow.memories.update_fields(lesson_id, confidence=after)
            uow.lessons.count_feedback(lesson_id, good)
            kind = "feedback_good" if good else "feedback_bad"
            uow.lessons.log_event(lesson_id, kind, item.confidence, after)
            uow.commit()
        return {"id": lesson_id, "category": item.category, "confidence_before": item.confidence,
                "confidence": after}

    def applied_to(self, task_id: str) -> list[str]:
        """The lessons the task's prompt carried (recorded by the enricher)."""
        with self._units() as uow:
            return uow.lessons.applied_to(task_id)

    def get(self, lesson_id: str) -> dict[str, Any]:
        with self._units() as uow:
            item = uow.learned.get(lesson_id)
            if item is None or item.category not in RATED_CATEGORIES:
                raise NotFound(f"no lesson or rule {lesson_id}")
            stats = uow.lessons.stats(lesson_id)
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
