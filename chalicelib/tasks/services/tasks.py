"""Use cases a user (CLI, API, Telegram) has on tasks: create, find, list, cancel, follow, steer."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from chalicelib.auth.request_principal import own_machine
from chalicelib.contracts.engine_switch import KNOWN_ENGINES
from chalicelib.contracts.machine_messages import CANCEL, TASK_INPUT, MachineMessage
from chalicelib.kernel.errors import InvalidInput, NotFound, or_not_found
from chalicelib.kernel.logging import get_logger
from chalicelib.kernel.short_ids import ShortIdLookup
from chalicelib.tasks.domain.steering import MESSAGE_KIND, check_message, parse_mode
from chalicelib.tasks.domain.task_model import NewEvent, NewTask, Task, TaskEvent, check_repo
from chalicelib.tasks.domain.task_states import TaskStatus, ensure_transition
from chalicelib.tasks.services.machines import require_registered
from chalicelib.tasks.services.task_deps import TaskDeps, TaskUseCase


class TaskService(TaskUseCase):
    def __init__(self, deps: TaskDeps) -> None:
        super().__init__(deps)
        self._lookup: ShortIdLookup[Task] = ShortIdLookup(deps.uow, lambda uow: uow.tasks, "task")

    def create(self, new: NewTask) -> Task:
        """Store a queued task and put it on the dispatch queue (idempotent on idempotency_key). A
        machine key's task goes to its own machine; a task naming a machine needs that machine
        registered (`require_registered`)."""
        new = replace(new, target_machine=new.target_machine or own_machine())
        if new.engine and new.engine not in KNOWN_ENGINES:
            raise InvalidInput(f"engine must be one of {', '.join(KNOWN_ENGINES)}", field="engine")
        check_repo(new.repo)
        with self._uow() as uow:
            if new.target_machine is not None:
                require_registered(uow, new.target_machine)
            task, fresh = uow.tasks.insert(str(uuid.uuid4()), new)
            created = uow.events.append(task.id, 0, [NewEvent("created", new.description[:200], {
                "project": new.project, "repo": new.repo, "engine": new.engine,
                "machine": new.target_machine})]) if fresh else []
            if task.status == TaskStatus.QUEUED:  # a lost send is repaired by the sweep's re-offer
                uow.after_commit(lambda: self._queues.send_dispatch(task.id))
            self._announce(uow, task, created)
            uow.commit()
        get_logger().info("task created", extra={"task_id": task.id, "project": task.project})
        return task

    def check_machine(self, machine_id: str | None) -> None:
        """Refuse a machine a task could not be created for (malformed or never registered)."""
        if machine_id is not None:
            with self._uow() as uow:
                require_registered(uow, machine_id)

    def resolve(self, ref: str) -> str:
        """Accept a full task id or a unique prefix of at least six characters."""
        return self._lookup.resolve(ref)

    def get(self, ref: str) -> Task:
        return self._lookup.get(ref)

    def list_tasks(self, *, status: str | None = None, project: str | None = None,
                   machine: str | None = None, limit: int = 50) -> list[Task]:
        if status is not None and status not in set(TaskStatus):
            raise InvalidInput(f"unknown status {status!r}", field="status")
        with self._uow() as uow:  # a machine key sees its own machine's tasks only
            return uow.tasks.search(status=status, project=project, machine=machine or own_machine(),
                                    limit=limit)

    def events(self, ref: str, *, after: int = 0, limit: int = 200) -> list[TaskEvent]:
        task_id = self.resolve(ref)
        with self._uow() as uow:
            if uow.tasks.get(task_id) is None:
                raise NotFound(f"no task {ref!r}")
            return uow.events.since(task_id, after=after, limit=limit)

    def cancel(self, ref: str) -> Task:
        """Cancel at once if not started; a running task gets a cancel request its agent acts on."""
        task_id = self.resolve(ref)
        with self._uow() as uow:
            task = or_not_found(uow.tasks.get(task_id, for_update=True), f"no task {ref!r}")
            ensure_transition(task.status, TaskStatus.CANCELLED)
            if task.status == TaskStatus.RUNNING:
                updated = uow.tasks.update(task_id, where_status=("running",), cancel_requested=True)
                events = uow.events.append(task_id, task.attempts, [NewEvent("cancel_requested")])
            else:
                updated = uow.tasks.update(task_id, where_status=(task.status.value,),
                                           status="cancelled", finished_at=self._deps.clock())
                events = uow.events.append(task_id, task.attempts, [NewEvent("cancelled")])
            assert updated is not None
            if updated.status == TaskStatus.RUNNING and updated.machine_id:
                # The agent also learns it from its next lease renewal, should this send be lost.
                message = MachineMessage(CANCEL, task_id=task_id).to_body()
                uow.after_commit(lambda: self._queues.send_to_machine(updated.machine_id or "", message))
            self._announce(uow, updated, events)
            uow.commit()
        return updated

    def relay_input(self, task_id: str, seq: int, text: str) -> bool:
        """Send a message to a running task's agent for its engine's next turn; False if the task
        is not running (the caller keeps the message for later)."""
        with self._uow() as uow:
            task = uow.tasks.get(task_id)
        if task is None or task.status != TaskStatus.RUNNING or not task.machine_id:
            return False
        body = MachineMessage(TASK_INPUT, task_id=task_id, seq=seq, text=text).to_body()
        self._queues.send_to_machine(task.machine_id, body)
        return True

    def steer(self, ref: str, text: str, *, mode: str, key: str,
              files: Sequence[Mapping[str, Any]] = ()) -> TaskEvent | None:
        """Send a message to a running task: recorded as a `user_input` event (its seq numbers the
        message) and sent to the task's machine, which steers the running turn with it or queues it
        for the next (`domain/steering.py`). Idempotent on `key`: a repeat sends nothing, None.

        `files` are the message's attachments as {"name", "size", "file_id"} (Telegram keeps the
        bytes; the machine fetches each through `TaskRunService.attachment`); with files the text
        may be empty."""
        text, mode = check_message(text, attached=len(files)), parse_mode(mode)
        task_id = self.resolve(ref)
        with self._uow() as uow:
            task = or_not_found(uow.tasks.get(task_id, for_update=True), f"no task {ref!r}")
            if task.status != TaskStatus.RUNNING or not task.machine_id:
                raise InvalidInput(f"task {task_id[:8]} is {task.status.value}, not running: "
                                   "there is no turn to steer", field="task")
            if not uow.claims.claim("task-message", key):
                return None
            stored = [dict(f) for f in files]
            data = {"mode": mode, "chars": len(text), **({"files": stored} if stored else {})}
            (event,) = uow.events.append(task_id, task.attempts, [NewEvent(MESSAGE_KIND, text[:2000], data)])
            body = MachineMessage(TASK_INPUT, task_id=task_id, seq=event.seq, text=text, mode=mode,
                                  files=tuple(str(f["name"]) for f in stored)).to_body()
            machine = task.machine_id
            uow.after_commit(lambda: self._queues.send_to_machine(machine, body))
            uow.commit()
        get_logger().info("task message sent", extra={"task_id": task_id, "mode": mode})
        return event
