"""A finished task read as a conversation, so the insight extractors learn from it as from a session.

The task's description is what the user asked (`User:`), its result and its error are what
the engine answered (`Assistant:`), and a note the user left with their verdict is the user
speaking again. The extractors (LLM or heuristic) and the rules that store, reinforce and
promote what they find are the sessions' own; only the transcript differs. Each attempt's
outcome is one transcript (`task:<id>#<attempt>`), the user's note another (`task:<id>#feedback`),
so each is extracted once however often it is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

SOURCE = "task"
MAX_PART_CHARS = 20_000


@dataclass(frozen=True)
class TaskRecord:
    """What the learning loop reads of a task once an attempt has ended."""

    task_id: str
    project: str
    description: str
    attempt: int = 1
    outcome: str = "success"  # success | failure | cancelled
    summary: str = ""
    error: str | None = None
    files_changed: tuple[str, ...] = ()
    duration_s: float | None = None

    @property
    def teaches(self) -> bool:
        """A cancelled attempt says nothing about the work: it teaches nothing."""
        return self.outcome in ("success", "failure")

    @property
    def duration_ms(self) -> int | None:
        return int(self.duration_s * 1000) if self.duration_s is not None else None


def outcome_key(task_id: str, attempt: int) -> str:
    return f"task:{task_id}#{attempt}"


def feedback_key(task_id: str) -> str:
    return f"task:{task_id}#feedback"


def _said(speaker: str, text: str) -> str:
    return f"{speaker}: {text.strip()[:MAX_PART_CHARS]}"


def conversation(record: TaskRecord, note: str | None = None) -> str:
    """The task as `User:` / `Assistant:` paragraphs, as the SessionEnd hook sends a session."""
    parts = [_said("User", record.description)]
    summary = (record.summary or "").strip()
    if summary:
        parts.append(_said("Assistant", summary))
    error = (record.error or "").strip()
    if record.outcome == "failure" and error and error not in summary:
        parts.append(_said("Assistant", f"The task failed: {error}"))
    if note and note.strip():
        parts.append(_said("User", note))
    return "\n\n".join(parts)
