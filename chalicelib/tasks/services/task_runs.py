"""What an agent does with a task: claim it, keep its lease, report progress, switch engine,
report the result and the outcome, or hand it back. Every call names the machine and the
attempt, so a late call from an agent that lost the task is refused (409)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound, or_not_found
from chalicelib.kernel.logging import get_logger
from chalicelib.kernel.redaction import redact
from chalicelib.tasks.domain.steering import MESSAGE_KIND
from chalicelib.tasks.domain.task_model import NewEvent, Task, TaskEvent, TaskOutcome, TaskResult, redacted
from chalicelib.tasks.domain.task_states import RESULT_STATUSES, TaskStatus, ensure_transition
from chalicelib.tasks.services.ports import OutcomeListener, PromptEnricher, TasksUnitOfWork
from chalicelib.tasks.services.task_budgets import record_spend
from chalicelib.tasks.services.task_deps import TaskDeps, TaskUseCase

REFILL_AFTER_RESULT = 2


@dataclass(frozen=True)
class Claim:
    task: Task
    prompt: str
    lease_s: float
    max_switches: int


@dataclass(frozen=True)
class LeaseState:
    keep_running: bool
    status: TaskStatus
    cancel_requested: bool
    lease_s: float


class TaskRunService(TaskUseCase):
    def __init__(self, deps: TaskDeps, enricher: PromptEnricher, outcomes: OutcomeListener) -> None:
        super().__init__(deps)
        self._enricher, self._outcomes = enricher, outcomes

    def claim(self, task_id: str, machine_id: str, dispatch_seq: int, agent_instance: str) -> Claim:
        """dispatched -> running, atomically: of two deliveries of one message, one claim wins."""
        with self._uow() as uow:
            task = uow.tasks.claim(task_id, machine_id, dispatch_seq, agent_instance, self._policy.lease_s)
            if task is None:
                current = self._require(uow, task_id)
                raise Conflict(f"task is {current.status.value} (dispatch {current.dispatch_seq} to "
                               f"{current.machine_id}); not claimable by {machine_id} "
                               f"for dispatch {dispatch_seq}")
            events = uow.events.append(task_id, task.attempts, [NewEvent(
                "started", f"attempt {task.attempts} on {machine_id}",
                {"attempt": task.attempts, "machine": machine_id})])
            self._announce(uow, task, events)
            uow.commit()
        get_logger().info("task claimed", extra={"task_id": task_id, "machine_id": machine_id,
                                                 "attempt": task.attempts})
        prompt = self._enricher.enrich(task.description, task.project, task_id=task.id)
        return Claim(task, prompt, self._policy.lease_s, self._policy.max_switches)

    def renew(self, task_id: str, machine_id: str, attempt: int) -> LeaseState:
        """Extend the lease; the answer also tells the agent to stop (cancelled, timed out, lost)."""
        with self._uow() as uow:
            task = uow.tasks.renew_lease(task_id, machine_id, attempt, self._policy.lease_s)
            if task is None:
                current = self._require(uow, task_id)
                return LeaseState(False, current.status, current.cancel_requested, self._policy.lease_s)
            uow.commit()
        return LeaseState(not task.cancel_requested, task.status, task.cancel_requested, self._policy.lease_s)

    def record_events(self, task_id: str, machine_id: str, attempt: int,
                      new: Sequence[NewEvent]) -> list[TaskEvent]:
        with self._uow() as uow:
            task = self._owned(uow, task_id, machine_id, attempt, running=False)
            events = uow.events.append(task_id, attempt, redacted(new))
            record_spend(uow, task, attempt, [e.data for e in new], self._deps.clock().date())
            self._announce(uow, task, events)
            uow.commit()
        return events

    def switch_engine(self, task_id: str, machine_id: str, attempt: int, from_engine: str,
                      to_engine: str, reason: str) -> Task:
        """Count an engine switch; refused past the task's switch limit (the loop guard)."""
        with self._uow() as uow:
            task = self._owned(uow, task_id, machine_id, attempt)
            if task.engine_switches >= self._policy.max_switches:
                raise Conflict(f"switch limit reached ({task.engine_switches}/{self._policy.max_switches})")
            updated = uow.tasks.update(task_id, where_status=("running",),
                                       engine_switches=task.engine_switches + 1, current_engine=to_engine)
            assert updated is not None
            events = uow.events.append(task_id, attempt, [NewEvent(
                "engine_switch", f"{from_engine} -> {to_engine}: {reason}",
                {"from": from_engine, "to": to_engine, "switches": updated.engine_switches})])
            self._announce(uow, updated, events)
            uow.commit()
        return updated

    def finish(self, task_id: str, machine_id: str, attempt: int, result: TaskResult) -> Task:
        if result.status not in RESULT_STATUSES:
            raise InvalidInput(f"a result cannot be {result.status}", field="status")
        with self._uow() as uow:
            task = self._owned(uow, task_id, machine_id, attempt)
            ensure_transition(task.status, TaskStatus(result.status))
            result = replace(result, summary=redact(result.summary),
                             error=redact(result.error) if result.error else None)
            updated = uow.tasks.finish(task_id, machine_id, attempt, result)
            assert updated is not None
            record_spend(uow, task, attempt, [{"cost_usd": result.cost_usd}], self._deps.clock().date())
            events = uow.events.append(task_id, attempt, [NewEvent(
                result.status, result.summary[:2000],
                {"exit_code": result.exit_code, "files_changed": list(result.files_changed)[:100],
                 "cost_usd": result.cost_usd, "branch": result.branch, "error": result.error})])
            self._announce(uow, updated, events)
            self._offer_waiting_after(uow, (machine_id,), REFILL_AFTER_RESULT)  # the freed slot
            uow.commit()
        get_logger().info("task finished", extra={"task_id": task_id, "status": result.status})
        return updated

    def release(self, task_id: str, machine_id: str, dispatch_seq: int, reason: str) -> Task:
        """A machine hands back a task it was sent but cannot run; it is dispatched again."""
        with self._uow() as uow:
            updated = uow.tasks.update(task_id, where_status=("dispatched",),
                                       where={"machine_id": machine_id, "dispatch_seq": dispatch_seq},
                                       status="queued", machine_id=None)
            if updated is None:
                raise Conflict(f"task is not dispatched to {machine_id} (dispatch {dispatch_seq})")
            events = uow.events.append(task_id, updated.attempts,
                                       [NewEvent("released", reason, {"machine": machine_id})])
            self._announce(uow, updated, events)
            uow.after_commit(lambda: self._queues.send_dispatch(task_id))
            uow.commit()
        return updated

    def attachment(self, task_id: str, machine_id: str, seq: int, index: int) -> dict[str, Any]:
        """File `index` of the message that is event `seq` of the task, for the machine running it:
        {"name", "size", "file_id"}."""
        try:
            uuid.UUID(task_id)
        except ValueError:
            raise NotFound(f"no task {task_id!r}") from None
        with self._uow() as uow:
            task = self._require(uow, task_id)
            if task.machine_id != machine_id:
                raise Conflict(f"task {task_id} runs on {task.machine_id}, not {machine_id}")
            found = [e for e in uow.events.since(task_id, after=seq - 1, limit=1) if e.seq == seq]
        files = found[0].data.get("files") or [] if found and found[0].kind == MESSAGE_KIND else []
        if not 0 <= index < len(files):
            raise NotFound(f"message {seq} of task {task_id} has no file {index}")
        return dict(files[index])

    def record_outcome(self, outcome: TaskOutcome) -> bool:
        """Keep one attempt's outcome (once); the learning loop hears of each new one."""
        with self._uow() as uow:
            task = self._require(uow, outcome.task_id)
            recorded = uow.outcomes.record(outcome)
            if recorded:
                uow.after_commit(lambda: self._outcomes.recorded(outcome, task))
            uow.commit()
        return recorded

    @staticmethod
    def _require(uow: TasksUnitOfWork, task_id: str) -> Task:
        task = uow.tasks.get(task_id)
        return or_not_found(task, f"no task {task_id}")

    @staticmethod
    def _owned(uow: TasksUnitOfWork, task_id: str, machine_id: str, attempt: int, *,
               running: bool = True) -> Task:
        task = or_not_found(uow.tasks.get(task_id, for_update=True), f"no task {task_id}")
        if task.machine_id != machine_id or task.attempts != attempt:
            raise Conflict(f"attempt {attempt} on {machine_id} is not the task's current attempt")
        if running and task.status != TaskStatus.RUNNING:
            raise Conflict(f"task is {task.status.value}, not running")
        return task
