"""Lessons from tasks: a finished task (its result, its error, the user's note on it) goes through
the same insight extraction as a session, so tasks that never had a hook session teach too.

What is found is stored as a session's would be: insights as memories (`metadata.source =
"task_insight"`, `session_id = task:<id>#<attempt>`), rules through the project-rule dedup,
and insights of a significant task (>= 0.7) promoted to `task_lesson` memories at 0.7, which
later tasks' outcomes then move by +0.10 / -0.15. A failed attempt proves nothing it says: what
is found in it is stored as `hypothesis` memories only (see `insight_extraction`). With an LLM
configured the transcript is queued on `ingest` like a session's; without one the heuristic runs
inline.
"""

from __future__ import annotations

from typing import Any

from chalicelib.learning.domain.task_transcript import (
    SOURCE,
    TaskRecord,
    conversation,
    feedback_key,
    outcome_key,
)
from chalicelib.learning.services.insight_extraction import InsightExtraction, SessionTranscript
from chalicelib.tasks.domain.task_model import Task, TaskOutcome

_OUTCOME_OF_STATUS = {"completed": "success", "failed": "failure", "timed_out": "failure"}


def task_record(task: Task, outcome: TaskOutcome | None = None) -> TaskRecord:
    """The task as the learning loop reads it: its stored row, with an attempt's outcome over it."""
    if outcome is None:
        return TaskRecord(task.id, task.project, task.description, task.attempts,
                          _OUTCOME_OF_STATUS.get(task.status.value, task.status.value),
                          task.result_summary or "", task.error, tuple(task.files_changed))
    return TaskRecord(outcome.task_id, outcome.project, task.description, outcome.attempt, outcome.outcome,
                      outcome.summary or task.result_summary or "", task.error,
                      tuple(outcome.files_changed or task.files_changed), outcome.duration_s)


class TaskLessons:
    def __init__(self, extraction: InsightExtraction) -> None:
        self._extraction = extraction

    def from_outcome(self, record: TaskRecord) -> dict[str, Any] | None:
        """Extract from one ended attempt (once per attempt); None for a cancelled one."""
        if not record.teaches:
            return None
        return self._extraction.submit(SessionTranscript(
            outcome_key(record.task_id, record.attempt), record.project, conversation(record),
            record.files_changed, record.summary or record.error, record.duration_ms, source=SOURCE,
            hypothetical=record.outcome == "failure"))

    def from_note(self, record: TaskRecord, note: str) -> dict[str, Any] | None:
        """Extract from the note the user left with their verdict (once per task)."""
        if not note.strip():
            return None
        return self._extraction.submit(SessionTranscript(
            feedback_key(record.task_id), record.project, conversation(record, note),
            record.files_changed, record.summary or record.error, record.duration_ms, source=SOURCE))
