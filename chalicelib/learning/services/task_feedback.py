"""/feedback <task> good|bad [note]: the user's verdict on a task moves the lessons its prompt carried,
and a note they leave with it is read for rules and lessons like a session's words.

Each lesson or rule applied to the task gets the learning loop's feedback step (+/-0.10).
A task is rated once: a second verdict is refused rather than applied twice. The note goes
through `TaskLessons.from_note` (the task's description and result with the note as the
user's last words), so "bad: always run the migrations first" becomes a project rule.
"""

from __future__ import annotations

from typing import Any, Protocol

from chalicelib.kernel.errors import Conflict
from chalicelib.learning.services.ports import LearningUnits
from chalicelib.learning.services.task_lessons import TaskLessons, task_record
from chalicelib.tasks.domain.task_model import Task


class LessonVerdicts(Protocol):
    def applied_to(self, task_id: str) -> list[str]: ...

    def feedback(self, lesson_id: str, good: bool) -> Any: ...


class TaskFeedback:
    def __init__(self, units: LearningUnits, lessons: LessonVerdicts,
                 task_lessons: TaskLessons | None = None) -> None:
        self._units = units
        self._lessons = lessons
        self._task_lessons = task_lessons

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

    def learn_from_note(self, task: Task, note: str) -> dict[str, Any] | None:
        """Read the user's note on a rated task for rules and lessons (once per task)."""
        if self._task_lessons is None:
            return None
        return self._task_lessons.from_note(task_record(task), note)
