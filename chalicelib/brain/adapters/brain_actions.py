"""What an approved proposal runs, through the other capabilities' services and the queues.

Every action is safe to run twice under one key: tasks are created with the proposal's
idempotency key, a DLQ already moved back has nothing left to move, pausing is a state.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chalicelib.kernel.errors import DomainError, InvalidInput
from chalicelib.kernel.logging import get_logger

if TYPE_CHECKING:
    from chalicelib.kernel.queues import SqsQueues
    from chalicelib.tasks.services.tasks import TaskService

MAX_REQUEUE = 500
_UNFINISHED = ("queued", "dispatched")


class CapabilityActions:
    def __init__(self, tasks: Callable[[], TaskService], queues: Callable[[], SqsQueues],
                 pause_machine: Callable[[str], str]) -> None:
        self._tasks, self._queues, self._pause = tasks, queues, pause_machine

    def run(self, action: dict[str, Any], idempotency_key: str) -> str:
        kind = action.get("kind")
        if kind == "retry_task":
            return self._retry(str(action["task_id"]), idempotency_key)
        if kind == "create_task":
            return self._create(str(action["project"]), str(action["description"]), idempotency_key)
        if kind == "requeue_dlq":
            return self._requeue(str(action["queue"]))
        if kind == "pause_machine":
            return self._pause(str(action["machine_id"]))
        raise InvalidInput(f"unknown action {kind!r}")

    def _retry(self, task_id: str, key: str) -> str:
        from chalicelib.tasks.domain.task_model import NewTask

        tasks = self._tasks()
        old = tasks.get(task_id)
        if old.status.value in _UNFINISHED:  # a stale one: the copy replaces it
            with contextlib.suppress(DomainError):  # it moved on meanwhile; the copy still goes
                tasks.cancel(old.id)
        new = tasks.create(NewTask(old.project, old.description, repo=old.repo, engine=old.engine,
                                   time_budget_s=old.time_budget_s, cost_budget_usd=old.cost_budget_usd,
                                   max_attempts=old.max_attempts, idempotency_key=key))
        return f"retry task {new.id[:8]} created (from {old.id[:8]})"

    def _create(self, project: str, description: str, key: str) -> str:
        from chalicelib.tasks.domain.task_model import NewTask

        new = self._tasks().create(NewTask(project, description, idempotency_key=key))
        return f"task {new.id[:8]} created in {project}"

    def _requeue(self, key: str) -> str:
        queues = self._queues()
        moved = 0
        while moved < MAX_REQUEUE:
            batch = queues.receive(f"{key}-dlq", max_messages=10, wait_s=0, visibility_timeout_s=60)
            if not batch:
                break
            for message in batch:
                queues.client.send_message(QueueUrl=queues.url(key), MessageBody=message.body)
                queues.delete(f"{key}-dlq", message.receipt_handle)
                moved += 1
        get_logger().info("DLQ requeued", extra={"queue": key, "moved": moved})
        return f"moved {moved} message(s) from the {key} DLQ back to its queue"


class QueueDepths:
    """The DLQ depths of the queue table (the machines' own DLQs are the agents' concern)."""

    def __init__(self, queues: Callable[[], SqsQueues]) -> None:
        self._queues = queues

    def dlq_depths(self) -> dict[str, int]:
        from chalicelib.kernel.queue_table import QUEUES

        queues = self._queues()
        return {spec.key: queues.depth(spec.dlq_key) for spec in QUEUES}
