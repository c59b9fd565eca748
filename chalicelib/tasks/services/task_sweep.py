"""sweep_tasks: the scheduled safety net (every minute) for tasks whose runner went away.

- running, lease expired: the agent stopped renewing: retried while attempts remain, else failed;
- running past its time budget plus a grace period: timed out (the agent failed to stop it);
- dispatched but not claimed in time, or its machine went offline: back to queued;
- sessions on machines gone offline: failed;
- then the queued tasks the online machines may take are offered to the dispatcher again
  (per machine and project: a backlog for machines that are gone holds nothing back).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from chalicelib.kernel.logging import get_logger
from chalicelib.tasks.domain.agent_session_states import SessionStatus
from chalicelib.tasks.domain.task_model import NewEvent, Task, TaskEvent
from chalicelib.tasks.services.ports import TasksUnitOfWork
from chalicelib.tasks.services.task_deps import TaskUseCase
from chalicelib.tasks.services.task_recovery import recover_task, requeue_dispatched

LEASE_LOST = "lease expired: the agent stopped reporting"


@dataclass(frozen=True)
class SweepReport:
    recovered: int
    timed_out: int
    requeued_dispatched: int
    sessions_failed: int
    offered: int


class TaskSweeper(TaskUseCase):
    def sweep(self) -> SweepReport:
        with self._uow() as uow:
            now = self._deps.clock()
            recovered = sum(self._keep(uow, *recover_task(uow, task, LEASE_LOST, now))
                            for task in uow.tasks.lost_leases())
            timed_out = sum(self._keep(uow, *self._time_out(uow, task, now))
                            for task in uow.tasks.overdue(self._policy.overdue_grace_s))
            records = uow.machines.records()
            online = {r.view.id for r in records if r.view.online(self._policy.offline_after_s)}
            requeued = sum(self._keep(uow, *requeue_dispatched(uow, task, "not claimed by its machine"))
                           for task in uow.tasks.stuck_dispatched(0)
                           if task.machine_id not in online or self._claim_overdue(task, now))
            sessions = 0
            for record in records:
                if record.view.id not in online:
                    for session in uow.sessions.open_on_machine(record.view.id):
                        uow.sessions.set_status(session.id, SessionStatus.FAILED, error="machine offline")
                        sessions += 1
            uow.commit()
        report = SweepReport(recovered, timed_out, requeued, sessions, self._offer_waiting(online))
        if recovered or timed_out or requeued or sessions:
            get_logger().info("task sweep", extra=report.__dict__)
        return report

    @staticmethod
    def _time_out(uow: TasksUnitOfWork, task: Task, now: datetime) -> tuple[Task | None, list[TaskEvent]]:
        updated = uow.tasks.update(task.id, where_status=("running",), status="timed_out",
                                   error="time budget exceeded", lease_expires_at=None, finished_at=now)
        if updated is None:
            return None, []
        return updated, uow.events.append(task.id, task.attempts, [
            NewEvent("timed_out", f"over its {task.time_budget_s}s budget")])

    def _claim_overdue(self, task: Task, now: datetime) -> bool:
        if task.dispatched_at is None:
            return True
        return (now - task.dispatched_at).total_seconds() > self._policy.claim_timeout_s

    def _keep(self, uow: TasksUnitOfWork, task: Task | None, events: list[TaskEvent]) -> int:
        """Announce a changed task once committed; count it."""
        if task is None:
            return 0
        self._announce(uow, task, events)
        return 1
