"""The task area's OutcomeListener: each newly recorded attempt outcome credits its lessons.

For a success or failure, it moves the confidence of the lessons the task's prompt carried
(recorded by `LessonEnricher.enrich(..., task_id=...)`). Cancelled attempts teach nothing.
The task area keeps the `task_outcomes` row itself and calls this once per attempt.
"""

from __future__ import annotations

from chalicelib.learning.services.lessons import Lessons
from chalicelib.tasks.domain.task_model import TaskOutcome


class LessonOutcomeRecorder:
    def __init__(self, lessons: Lessons) -> None:
        self._lessons = lessons

    def recorded(self, outcome: TaskOutcome) -> None:
        if outcome.outcome in ("success", "failure"):
            self._lessons.record_outcome(outcome.task_id, outcome.project, outcome.outcome == "success",
                                         attempt=outcome.attempt)
