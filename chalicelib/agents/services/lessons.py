"""What each profile learns: from its runs' outcomes, its users' feedback and its own notes.

The learning loop's confidence rules apply (`learning.domain.lesson_confidence`): a new lesson
starts at 0.7; the lessons a run's prompt carried move +0.10 on success and -0.15 on failure,
and +/-0.10 on the user's good/bad verdict. The next run of the profile gets its best lessons
appended to its prompt (`AgentPromptEnricher`). A note saved before a running subagent's context
is compacted (the pre-compaction flush) is kept as a `notes` lesson of its profile.
"""

from __future__ import annotations

import uuid

from chalicelib.agents.domain.records import AgentRun, ProfileLesson, outcome_lesson
from chalicelib.agents.services.ports import AgentsUnits
from chalicelib.kernel.errors import Conflict, InvalidInput
from chalicelib.kernel.redaction import redact
from chalicelib.learning.domain import lesson_confidence

MAX_LESSONS = 5
MAX_NOTE = 4000


class ProfileLessons:
    def __init__(self, units: AgentsUnits) -> None:
        self._units = units

    def top(self, profile: str, limit: int = MAX_LESSONS) -> list[ProfileLesson]:
        with self._units() as uow:
            return uow.lessons.top(profile, limit)

    def learn_from_run(self, run: AgentRun, status: str, summary: str,
                       error: str | None) -> ProfileLesson | None:
        """Credit the lessons the run carried and keep what it did as a lesson (cancelled: nothing)."""
        if status == "cancelled" and not run.stop_reason:
            return None
        with self._units() as uow:
            for lesson_id in run.lessons_applied:
                lesson = uow.lessons.get(lesson_id, for_update=True)
                if lesson is not None:
                    after = lesson_confidence.after_outcome(lesson.confidence, status == "completed")
                    uow.lessons.set_confidence(lesson_id, after)
            content = redact(outcome_lesson(run, status, summary, error or run.stop_reason))
            learned = uow.lessons.upsert(str(uuid.uuid4()), run.profile, content, "outcome",
                                         lesson_confidence.INITIAL, run.id)
            uow.commit()
        return learned

    def feedback(self, run: AgentRun, good: bool, note: str | None = None) -> list[ProfileLesson]:
        """The user's verdict on a run: its lessons move, and a note becomes a lesson of the profile."""
        if note is not None and len(note) > MAX_NOTE:
            raise InvalidInput(f"a note is at most {MAX_NOTE} characters", field="note")
        with self._units() as uow:
            current = uow.runs.get(run.id, for_update=True)
            if current is None or current.rated:
                raise Conflict("this run was already rated")
            uow.runs.update(run.id, rated=True)
            changed = []
            for lesson_id in current.lessons_applied:
                lesson = uow.lessons.get(lesson_id, for_update=True)
                if lesson is not None:
                    after = lesson_confidence.after_feedback(lesson.confidence, good)
                    uow.lessons.set_confidence(lesson_id, after)
                    changed.append(lesson_id)
            if note and note.strip():
                uow.lessons.upsert(str(uuid.uuid4()), run.profile, redact(" ".join(note.split())), "feedback",
                                   lesson_confidence.TAUGHT, run.id)  # the user teaching it
            uow.commit()
            return [lesson for lesson_id in changed if (lesson := uow.lessons.get(lesson_id))]

    def save_notes(self, run: AgentRun, notes: str) -> ProfileLesson:
        """The pre-compaction flush: a running subagent's working notes, kept for its profile."""
        text = " ".join(notes.split())
        if not text or len(text) > MAX_NOTE:
            raise InvalidInput(f"notes are 1 to {MAX_NOTE} characters", field="notes")
        with self._units() as uow:
            saved = uow.lessons.upsert(str(uuid.uuid4()), run.profile, redact(text), "notes",
                                       lesson_confidence.INITIAL, run.id)
            uow.commit()
        return saved
