"""The task area's OutcomeListener: each newly recorded attempt outcome teaches the learning loop.

For a success or failure it first moves the confidence of the lessons the task's prompt
carried (recorded by `LessonEnricher.enrich(..., task_id=...)`), then reads the task itself
(description, result, error) for new insights, rules and lessons (`TaskLessons`), as a
session's transcript is read. Cancelled attempts teach nothing. The task area keeps the
`task_outcomes` row itself and calls this once per attempt, after commit.
"""

from __future__ import annotations

from chalicelib.kernel.logging import get_logger
from chalicelib.learning.services.lessons import Lessons
from chalicelib.learning.services.task_lessons import TaskLessons, task_record
from chalicelib.tasks.domain.task_model import Task, TaskOutcome


class LessonOutcomeRecorder:
    def __init__(self, lessons: Lessons, task_lessons: TaskLessons | None = None) -> None:
        self._lessons = lessons
        self._task_lessons = task_lessons

    def recorded(self, outcome: TaskOutcome, task: Task | None = None) -> None:
        if outcome.outcome not in ("success", "failure"):
            return
        self._lessons.record_outcome(outcome.task_id, outcome.project, outcome.outcome == "success",
                                     attempt=outcome.attempt)
        if self._task_lessons is None or task is None:
            return
        try:
            self._task_lessons.from_outcome(task_record(task, outcome))
        except Exception:  # the outcome is credited; a failed extraction must not hide that
            get_logger().exception("lessons from a task result not extracted",
                                   extra={"task_id": outcome.task_id, "attempt": outcome.attempt})
