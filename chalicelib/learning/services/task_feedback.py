"""/feedback <task> good|bad: the user's verdict on a task moves the lessons its prompt carried.

Each lesson or rule applied to the task gets the learning loop's feedback step (+/-0.10).
A task is rated once: a second verdict is refused rather than applied twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from chalicelib.kernel.database import Database
from chalicelib.kernel.errors import Conflict
from chalicelib.kernel.idempotency import claim

AppliedLessons = Callable[[str], Sequence[str]]  # task id -> lesson ids its prompt carried
LessonFeedback = Callable[[str, bool], Any]  # (lesson id, good) -> applied


class TaskFeedback:
    def __init__(self, db: Database, applied: AppliedLessons, feedback: LessonFeedback) -> None:
        self._db = db
        self._applied = applied
        self._feedback = feedback

    def rate(self, task_id: str, good: bool) -> int:
        """Apply the verdict to the task's lessons; return how many changed."""
        with self._db.connection() as conn:
            if not claim(conn, "task-feedback", task_id):
                raise Conflict("This task was already rated.")
        lesson_ids = list(self._applied(task_id))
        for lesson_id in lesson_ids:
            self._feedback(lesson_id, good)
        return len(lesson_ids)
