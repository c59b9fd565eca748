"""dispatch_task: send a queued task to the queue of the machine that should run it.

Idempotent on the task's state: only a queued task is dispatched, by a conditional UPDATE, so
a duplicated dispatch message does nothing. Decisions are serialised by a transaction-scoped
advisory lock, so two consumers cannot both fill a machine's last free slot.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from chalicelib.contracts.machine_messages import TASK, MachineMessage
from chalicelib.kernel.database import Database
from chalicelib.kernel.errors import NotFound
from chalicelib.kernel.logging import get_logger
from chalicelib.tasks.adapters.machine_repository import MachineRepository
from chalicelib.tasks.adapters.task_event_repository import TaskEventRepository
from chalicelib.tasks.adapters.task_repository import TaskRepository
from chalicelib.tasks.domain.machine_selection import TaskNeeds, choose_machine
from chalicelib.tasks.domain.task_model import NewEvent, Task, TaskEvent
from chalicelib.tasks.domain.task_states import TaskStatus
from chalicelib.tasks.services.task_policy import TaskPolicy
from chalicelib.tasks.services.task_ports import TaskEventPublisher, TaskQueues, announce

_DISPATCH_LOCK = 7_146_040


class DispatchOutcome(StrEnum):
    DISPATCHED = "dispatched"
    WAITING = "waiting"  # no suitable machine now: stays queued until one comes online
    SKIPPED = "skipped"  # not queued any more (duplicate message, cancelled, already running)


@dataclass(frozen=True)
class DispatchResult:
    outcome: DispatchOutcome
    machine_id: str | None = None


class TaskDispatcher:
    def __init__(self, db: Database, queues: TaskQueues, publisher: TaskEventPublisher,
                 policy: TaskPolicy) -> None:
        self._db = db
        self._queues = queues
        self._publisher = publisher
        self._policy = policy
        self._tasks = TaskRepository()
        self._events = TaskEventRepository()
        self._machines = MachineRepository()

    def dispatch(self, task_id: str) -> DispatchResult:
        """Choose a machine for a queued task and send it there; raises NotFound for no such task."""
        events: list[TaskEvent] = []
        with self._db.connection() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_DISPATCH_LOCK,))
            task = self._tasks.get(conn, task_id, for_update=True)
            if task is None:
                raise NotFound(f"no task {task_id}")
            if task.status != TaskStatus.QUEUED:
                return DispatchResult(DispatchOutcome.SKIPPED)
            views = [record.view for record in self._machines.records(conn)]
            needs = TaskNeeds(task.project, task.repo, task.engine, task.target_machine)
            machine_id = choose_machine(views, needs, self._policy.offline_after_s)
            if machine_id is None:
                return DispatchResult(DispatchOutcome.WAITING)
            dispatched = self._tasks.mark_dispatched(conn, task_id, machine_id)
            assert dispatched is not None
            events = self._events.append(conn, task_id, task.attempts, [
                NewEvent("dispatched", f"sent to {machine_id}", {"machine": machine_id,
                                                                  "dispatch_seq": dispatched.dispatch_seq})])
        # Sent once committed, so the agent's claim finds the task dispatched.
        message = MachineMessage(TASK, task_id=task_id, dispatch_seq=dispatched.dispatch_seq)
        try:
            self._queues.send_to_machine(machine_id, message.to_body())
        except Exception:
            self._undo(dispatched)
            raise
        get_logger().info("task dispatched", extra={"task_id": task_id, "machine_id": machine_id})
        self._publish(dispatched, events)
        return DispatchResult(DispatchOutcome.DISPATCHED, machine_id)

    def _undo(self, task: Task) -> None:
        """The machine's queue refused the message: the task is queued again (the message is retried)."""
        with self._db.connection() as conn:
            self._tasks.update(conn, task.id, where_status=("dispatched",),
                               where={"dispatch_seq": task.dispatch_seq}, status="queued", machine_id=None)

    def offer_waiting(self, limit: int | None = None) -> int:
        """Put the oldest queued tasks back on the dispatch queue; return how many."""
        with self._db.connection() as conn:
            ids = self._tasks.queued_ids(conn, limit or self._policy.waiting_batch)
        for task_id in ids:
            self._queues.send_dispatch(task_id)
        return len(ids)

    def _publish(self, task: Task, events: list[TaskEvent]) -> None:
        if events:
            announce(self._publisher, task, events)
