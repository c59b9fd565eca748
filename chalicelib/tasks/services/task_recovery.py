"""What happens to a running task whose agent is gone: retried while attempts remain, else failed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from chalicelib.tasks.domain.task_model import NewEvent, Task, TaskEvent
from chalicelib.tasks.domain.task_states import TaskStatus, after_lost_lease
from chalicelib.tasks.services.ports import TasksUnitOfWork


def recover_task(uow: TasksUnitOfWork, task: Task, reason: str,
                 now: datetime) -> tuple[Task | None, list[TaskEvent]]:
    """Requeue, fail or cancel a running task (locked by the caller); None if it moved meanwhile."""
    target = after_lost_lease(task.attempts, task.max_attempts, task.cancel_requested)
    common: dict[str, Any] = {"lease_expires_at": None, "agent_instance": None}
    if target == TaskStatus.QUEUED:
        updated = uow.tasks.update(task.id, where_status=("running",), where={"attempts": task.attempts},
                                   status="queued", machine_id=None, **common)
        kind = "requeued"
    else:
        error = reason if target == TaskStatus.FAILED else None
        updated = uow.tasks.update(task.id, where_status=("running",), where={"attempts": task.attempts},
                                   status=target.value, error=error, finished_at=now, **common)
        kind = target.value
    if updated is None:
        return None, []
    data = {"attempt": task.attempts, "max_attempts": task.max_attempts, "machine": task.machine_id}
    return updated, uow.events.append(task.id, task.attempts, [NewEvent(kind, reason, data)])


def requeue_dispatched(uow: TasksUnitOfWork, task: Task, reason: str) -> tuple[Task | None, list[TaskEvent]]:
    """Take a dispatched task back from a machine that did not claim it (or refused it)."""
    updated = uow.tasks.update(task.id, where_status=("dispatched",),
                               where={"dispatch_seq": task.dispatch_seq}, status="queued", machine_id=None)
    if updated is None:
        return None, []
    return updated, uow.events.append(task.id, task.attempts, [
        NewEvent("requeued", reason, {"machine": task.machine_id})])
