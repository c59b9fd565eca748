"""sweep_tasks: the scheduled safety net (every minute) for tasks whose runner went away.

- running, lease expired: the agent stopped renewing: retried while attempts remain, else failed;
- running past its time budget plus a grace period: timed out (the agent failed to stop it);
- dispatched but not claimed in time, or its machine went offline: back to queued;
- sessions on machines gone offline: failed;
- then the queued tasks are offered to the dispatcher again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from chalicelib.kernel.database import Database
from chalicelib.kernel.logging import get_logger
from chalicelib.tasks.adapters.agent_session_repository import AgentSessionRepository
from chalicelib.tasks.adapters.machine_repository import MachineRepository
from chalicelib.tasks.adapters.task_event_repository import TaskEventRepository
from chalicelib.tasks.adapters.task_repository import TaskRepository
from chalicelib.tasks.domain.agent_session_states import SessionStatus
from chalicelib.tasks.domain.task_model import NewEvent, Task, TaskEvent
from chalicelib.tasks.services.dispatch import TaskDispatcher
from chalicelib.tasks.services.task_policy import TaskPolicy
from chalicelib.tasks.services.task_ports import TaskEventPublisher, announce
from chalicelib.tasks.services.task_recovery import recover_task, requeue_dispatched


@dataclass(frozen=True)
class SweepReport:
    recovered: int
    timed_out: int
    requeued_dispatched: int
    sessions_failed: int
    offered: int


class TaskSweeper:
    def __init__(self, db: Database, publisher: TaskEventPublisher, dispatcher: TaskDispatcher,
                 policy: TaskPolicy) -> None:
        self._db, self._publisher, self._dispatcher, self._policy = db, publisher, dispatcher, policy
        self._tasks = TaskRepository()
        self._events = TaskEventRepository()
        self._machines = MachineRepository()
        self._sessions = AgentSessionRepository()

    def sweep(self) -> SweepReport:
        changed: list[tuple[Task, list[TaskEvent]]] = []
        counts = {"recovered": 0, "timed_out": 0, "requeued": 0, "sessions": 0}
        with self._db.connection() as conn:
            for task in self._tasks.lost_leases(conn):
                updated, events = recover_task(conn, task, "lease expired: the agent stopped reporting",
                                               self._tasks, self._events)
                counts["recovered"] += self._keep(changed, updated, events)
            for task in self._tasks.overdue(conn, self._policy.overdue_grace_s):
                updated = self._tasks.update(conn, task.id, where_status=("running",), status="timed_out",
                                             error="time budget exceeded", lease_expires_at=None,
                                             finished_at=datetime.now(UTC))
                events = self._events.append(conn, task.id, task.attempts, [
                    NewEvent("timed_out", f"over its {task.time_budget_s}s budget")]) if updated else []
                counts["timed_out"] += self._keep(changed, updated, events)
            online = {r.view.id for r in self._machines.records(conn)
                      if r.view.online(self._policy.offline_after_s)}
            for task in self._tasks.stuck_dispatched(conn, 0):
                if task.machine_id in online and not self._claim_overdue(task):
                    continue
                updated, events = requeue_dispatched(conn, task, "not claimed by its machine", self._tasks,
                                                     self._events)
                counts["requeued"] += self._keep(changed, updated, events)
            for record in self._machines.records(conn):
                if record.view.id in online:
                    continue
                for session in self._sessions.open_on_machine(conn, record.view.id):
                    self._sessions.set_status(conn, session.id, SessionStatus.FAILED, error="machine offline")
                    counts["sessions"] += 1
        for task, events in changed:
            announce(self._publisher, task, events)
        offered = self._dispatcher.offer_waiting()
        report = SweepReport(counts["recovered"], counts["timed_out"], counts["requeued"],
                             counts["sessions"], offered)
        if any(counts.values()):
            get_logger().info("task sweep", extra=report.__dict__)
        return report

    def _claim_overdue(self, task: Task) -> bool:
        if task.dispatched_at is None:
            return True
        return (datetime.now(UTC) - task.dispatched_at).total_seconds() > self._policy.claim_timeout_s

    @staticmethod
    def _keep(changed: list[tuple[Task, list[TaskEvent]]], task: Task | None, events: list[TaskEvent]) -> int:
        if task is None:
            return 0
        changed.append((task, events))
        return 1
