"""The task area's OutcomeRecorder port, crediting each finished attempt to its lessons.

It wraps the task area's own recorder (which keeps the `task_outcomes` row) and, for a newly
recorded success or failure, moves the confidence of the lessons the task's prompt carried
(recorded by `LessonEnricher.enrich(..., task_id=...)`). Cancelled attempts teach nothing.
"""

from __future__ import annotations

from typing import Protocol

from chalicelib.learning.services.lessons import Lessons
from chalicelib.tasks.domain.task_model import TaskOutcome


class OutcomeStore(Protocol):
    def record(self, outcome: TaskOutcome) -> bool: ...


class LessonOutcomeRecorder:
    def __init__(self, inner: OutcomeStore, lessons: Lessons) -> None:
        self._inner = inner
        self._lessons = lessons

    def record(self, outcome: TaskOutcome) -> bool:
        recorded = self._inner.record(outcome)
        if recorded and outcome.outcome in ("success", "failure"):
            self._lessons.record_outcome(outcome.task_id, outcome.project, outcome.outcome == "success",
                                         attempt=outcome.attempt)
        return recorded
