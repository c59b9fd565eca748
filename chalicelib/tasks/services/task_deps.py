"""What every task use case works with, and what they share: announcing committed events and
offering waiting tasks to the dispatcher again."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from chalicelib.kernel.logging import get_logger
from chalicelib.tasks.domain.task_model import Task, TaskEvent
from chalicelib.tasks.services.ports import (
    NullTaskEventPublisher,
    TaskEventPublisher,
    TaskQueues,
    TasksUnitOfWork,
)
from chalicelib.tasks.services.task_policy import TaskPolicy


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class TaskDeps:
    """`uow` opens one transaction; `queues` and `publisher` are used only after it commits."""

    uow: Callable[[], TasksUnitOfWork]
    queues: TaskQueues
    policy: TaskPolicy = field(default_factory=TaskPolicy)
    publisher: TaskEventPublisher = field(default_factory=NullTaskEventPublisher)
    clock: Callable[[], datetime] = _utc_now


class TaskUseCase:
    """Base of the task services: they differ in what they do, not in what they are given."""

    def __init__(self, deps: TaskDeps) -> None:
        self._deps = deps
        self._uow = deps.uow
        self._queues = deps.queues
        self._policy = deps.policy
        self._publisher = deps.publisher

    def _announce(self, uow: TasksUnitOfWork, task: Task, events: Sequence[TaskEvent]) -> None:
        """Publish `events` of `task` once `uow` has committed."""
        if events:
            uow.after_commit(lambda: announce(self._publisher, task, events))

    def _offer_waiting_after(self, uow: TasksUnitOfWork, machines: Collection[str],
                             limit: int | None = None) -> None:
        """Offer what `machines` may take once `uow` has committed (a slot was freed or a machine came)."""

        def offer() -> None:
            self._offer_waiting(machines, limit)

        uow.after_commit(offer)

    def _offer_waiting(self, machines: Collection[str], limit: int | None = None) -> int:
        """Put the queued tasks `machines` may take back on the dispatch queue, the oldest `limit` of
        each (machine, project) and of each project's tasks for any machine; return how many.

        Fair by construction: tasks waiting for other machines (offline, or never registered) are
        neither offered nor counted, so they cannot hold back a machine's own work."""
        with self._uow() as uow:
            ids = uow.tasks.queued_ids(limit or self._policy.waiting_batch, sorted(machines))
        for task_id in ids:
            self._queues.send_dispatch(task_id)
        return len(ids)


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
