"""What happens to a running task whose agent is gone: retried while attempts remain, else failed."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import psycopg

from chalicelib.tasks.adapters.task_event_repository import TaskEventRepository
from chalicelib.tasks.adapters.task_repository import TaskRepository
from chalicelib.tasks.domain.task_model import NewEvent, Task, TaskEvent
from chalicelib.tasks.domain.task_states import TaskStatus, after_lost_lease


def recover_task(conn: psycopg.Connection[Any], task: Task, reason: str,
                 tasks: TaskRepository, events: TaskEventRepository) -> tuple[Task | None, list[TaskEvent]]:
    """Requeue, fail or cancel a running task (locked by the caller); None if it moved meanwhile."""
    target = after_lost_lease(task.attempts, task.max_attempts, task.cancel_requested)
    common: dict[str, Any] = {"lease_expires_at": None, "agent_instance": None}
    if target == TaskStatus.QUEUED:
        updated = tasks.update(conn, task.id, where_status=("running",), where={"attempts": task.attempts},
                               status="queued", machine_id=None, **common)
        kind = "requeued"
    else:
        error = reason if target == TaskStatus.FAILED else None
        updated = tasks.update(conn, task.id, where_status=("running",), where={"attempts": task.attempts},
                               status=target.value, error=error, finished_at=datetime.now(UTC), **common)
        kind = target.value
    if updated is None:
        return None, []
    data = {"attempt": task.attempts, "max_attempts": task.max_attempts, "machine": task.machine_id}
    return updated, events.append(conn, task.id, task.attempts, [NewEvent(kind, reason, data)])


def requeue_dispatched(conn: psycopg.Connection[Any], task: Task, reason: str, tasks: TaskRepository,
                       events: TaskEventRepository) -> tuple[Task | None, list[TaskEvent]]:
    """Take a dispatched task back from a machine that did not claim it."""
    updated = tasks.update(conn, task.id, where_status=("dispatched",),
                           where={"dispatch_seq": task.dispatch_seq}, status="queued", machine_id=None)
    if updated is None:
        return None, []
    return updated, events.append(conn, task.id, task.attempts, [
        NewEvent("requeued", reason, {"machine": task.machine_id})])
