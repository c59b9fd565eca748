"""dispatch_task: send a queued task to the queue of the machine that should run it.

Idempotent on the task's state: only a queued task is dispatched, by a conditional update, so
a duplicated dispatch message does nothing. Decisions are serialised by the unit of work's
dispatch lock, so two consumers cannot both fill a machine's last free slot.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from chalicelib.contracts.machine_messages import TASK, MachineMessage
from chalicelib.kernel.errors import or_not_found
from chalicelib.kernel.logging import get_logger
from chalicelib.tasks.domain.machine_selection import TaskNeeds, choose_machine
from chalicelib.tasks.domain.task_model import NewEvent, Task
from chalicelib.tasks.domain.task_states import TaskStatus
from chalicelib.tasks.services.task_deps import TaskUseCase, announce


class DispatchOutcome(StrEnum):
    DISPATCHED = "dispatched"
    WAITING = "waiting"  # no suitable machine now: stays queued until one comes online
    SKIPPED = "skipped"  # not queued any more (duplicate message, cancelled, already running)


@dataclass(frozen=True)
class DispatchResult:
    outcome: DispatchOutcome
    machine_id: str | None = None


class TaskDispatcher(TaskUseCase):
    def dispatch(self, task_id: str) -> DispatchResult:
        """Choose a machine for a queued task and send it there; raises NotFound for no such task."""
        with self._uow() as uow:
            uow.lock_dispatch()
            task = or_not_found(uow.tasks.get(task_id, for_update=True), f"no task {task_id}")
            if task.status != TaskStatus.QUEUED:
                return DispatchResult(DispatchOutcome.SKIPPED)
            views = [record.view for record in uow.machines.records()]
            needs = TaskNeeds(task.project, task.repo, task.engine, task.target_machine)
            machine_id = choose_machine(views, needs, self._policy.offline_after_s)
            if machine_id is None:
                return DispatchResult(DispatchOutcome.WAITING)
            dispatched = uow.tasks.mark_dispatched(task_id, machine_id)
            assert dispatched is not None
            events = uow.events.append(task_id, task.attempts, [
                NewEvent("dispatched", f"sent to {machine_id}", {"machine": machine_id,
                                                                  "dispatch_seq": dispatched.dispatch_seq})])
            uow.commit()
        # Sent once committed (so the agent's claim finds the task dispatched), and not as an
        # after-commit action: a refused send must undo the dispatch and fail the SQS message,
        # and the dispatch is announced only once the machine has it.
        message = MachineMessage(TASK, task_id=task_id, dispatch_seq=dispatched.dispatch_seq)
        try:
            self._queues.send_to_machine(machine_id, message.to_body())
        except Exception:
            self._undo(dispatched)
            raise
        get_logger().info("task dispatched", extra={"task_id": task_id, "machine_id": machine_id})
        announce(self._publisher, dispatched, events)
        return DispatchResult(DispatchOutcome.DISPATCHED, machine_id)

    def _undo(self, task: Task) -> None:
        """The machine's queue refused the message: the task is queued again (the message is retried)."""
        with self._uow() as uow:
            uow.tasks.update(task.id, where_status=("dispatched",), where={"dispatch_seq": task.dispatch_seq},
                             status="queued", machine_id=None)
            uow.commit()
