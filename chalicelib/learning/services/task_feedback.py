"""/feedback <task> good|bad: the user's verdict on a task moves the lessons its prompt carried.

Each lesson or rule applied to the task gets the learning loop's feedback step (+/-0.10).
A task is rated once: a second verdict is refused rather than applied twice.
"""

from __future__ import annotations

from typing import Any, Protocol

from chalicelib.kernel.errors import Conflict
from chalicelib.learning.services.ports import LearningUnits


class LessonVerdicts(Protocol):
    def applied_to(self, task_id: str) -> list[str]: ...

    def feedback(self, lesson_id: str, good: bool) -> Any: ...


class TaskFeedback:
    def __init__(self, units: LearningUnits, lessons: LessonVerdicts) -> None:
        self._units = units
        self._lessons = lessons

    def rate(self, task_id: str, good: bool) -> int:
        """Apply the verdict to the task's lessons; return how many changed."""
        with self._units() as uow:
            if not uow.claims.claim("task-feedback", task_id):
                raise Conflict("This task was already rated.")
            uow.commit()
        lesson_ids = self._lessons.applied_to(task_id)
        for lesson_id in lesson_ids:
            self._lessons.feedback(lesson_id, good)
        return len(lesson_ids)
