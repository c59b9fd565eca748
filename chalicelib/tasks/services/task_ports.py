"""The ports task orchestration owns, with their default implementations.

Each is swapped in one line of `chalicelib/bootstrap.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from chalicelib.kernel.logging import get_logger
from chalicelib.tasks.domain.task_model import Task, TaskEvent, TaskOutcome


class TaskQueues(Protocol):
    def send_dispatch(self, task_id: str) -> None: ...
    def ensure_machine_queue(self, machine_id: str) -> str: ...
    def send_to_machine(self, machine_id: str, body: dict[str, Any]) -> None: ...


class PromptEnricher(Protocol):
    def enrich(self, prompt: str, project: str, task_id: str | None = None) -> str:
        """Return the prompt an engine should get for a task of `project`."""
        ...


class TaskEventPublisher(Protocol):
    """Told about task and session events after they are committed (the Telegram topic streams).

    Same shape as the Telegram front-end's EventPublisher. Runs on the request path of the
    agent's event posts: hand slow work to a queue.
    """

    def published(self, ref_id: str, events: Sequence[Mapping[str, Any]], *, kind: str = "task") -> None: ...

    def finished(self, ref_id: str, status: str, summary: str, *, kind: str = "task",
                 files_changed: Sequence[str] = ()) -> None: ...


class OutcomeRecorder(Protocol):
    def record(self, outcome: TaskOutcome) -> bool:
        """Store one attempt's outcome for the learning loop; False if already recorded."""
        ...


class NullTaskEventPublisher:
    def published(self, ref_id: str, events: Sequence[Mapping[str, Any]], *, kind: str = "task") -> None:
        return None

    def finished(self, ref_id: str, status: str, summary: str, *, kind: str = "task",
                 files_changed: Sequence[str] = ()) -> None:
        return None


class RecordingTaskEventPublisher:
    """Keeps what was published, in memory (tests and local inspection)."""

    def __init__(self) -> None:
        self.published_events: list[tuple[str, str, dict[str, Any]]] = []
        self.finished_refs: list[tuple[str, str, str]] = []

    def published(self, ref_id: str, events: Sequence[Mapping[str, Any]], *, kind: str = "task") -> None:
        self.published_events.extend((kind, ref_id, dict(e)) for e in events)

    def finished(self, ref_id: str, status: str, summary: str, *, kind: str = "task",
                 files_changed: Sequence[str] = ()) -> None:
        self.finished_refs.append((kind, ref_id, status))


def announce(publisher: TaskEventPublisher, task: Task, events: Sequence[TaskEvent]) -> None:
    """Publish committed events, and the end of the story when they moved the task to its end.

    Best effort by design: the events are already in Postgres (readers can poll them), so a
    failing publisher is logged with its traceback and must not fail the agent's request.
    """
    try:
        if events:
            publisher.published(task.id, [e.to_json() for e in events], kind="task")
        if task.status.terminal and any(e.kind == task.status.value for e in events):
            publisher.finished(task.id, task.status.value, task.result_summary or task.error or "",
                               kind="task", files_changed=task.files_changed)
    except Exception:
        get_logger().exception("task event publisher failed", extra={"task_id": task.id})


def announce_session(publisher: TaskEventPublisher, session_id: str, events: Sequence[Mapping[str, Any]],
                     *, finished: str | None = None, summary: str = "") -> None:
    """Publish a session's committed events (and its end); best effort like `announce`."""
    try:
        if events:
            publisher.published(session_id, events, kind="session")
        if finished:
            publisher.finished(session_id, finished, summary, kind="session")
    except Exception:
        get_logger().exception("session event publisher failed", extra={"session_id": session_id})
