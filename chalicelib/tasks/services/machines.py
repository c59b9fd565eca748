"""The machine registry: heartbeats (registration included), the list of machines, and the one
check that a task or run names a registered machine.

A heartbeat from a new agent process of a machine, or one saying the machine goes offline,
means the tasks the previous process was running have no runner any more: they are retried
or failed at once instead of waiting for their lease to run out, and the tasks sent to it but
not claimed (a message the dead process may have held) are taken back. An online machine with
a free slot is offered its queued tasks at once: a returning agent gets its work at its first
heartbeat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.kernel.errors import InvalidInput, NotFound
from chalicelib.kernel.logging import get_logger
from chalicelib.kernel.queue_table import MACHINE_ID_RULE, valid_machine_id
from chalicelib.tasks.domain.agent_session_states import SessionStatus
from chalicelib.tasks.domain.machine_records import Heartbeat, MachineRecord
from chalicelib.tasks.domain.machine_selection import machine_with_code, online_status
from chalicelib.tasks.domain.task_model import Task
from chalicelib.tasks.services.ports import TasksUnitOfWork
from chalicelib.tasks.services.task_deps import TaskDeps, TaskUseCase
from chalicelib.tasks.services.task_recovery import recover_task, requeue_dispatched


@dataclass(frozen=True)
class Registration:
    machine_id: str
    queue_url: str
    sqs_endpoint_url: str | None
    region: str
    heartbeat_s: float
    offline_after_s: float
    recovered_tasks: tuple[str, ...]


class MachineRegistry(TaskUseCase):
    def __init__(self, deps: TaskDeps, *, sqs_endpoint_url: str | None, region: str) -> None:
        super().__init__(deps)
        self._endpoint, self._region = sqs_endpoint_url, region

    def heartbeat(self, hb: Heartbeat) -> Registration:
        if not valid_machine_id(hb.machine_id):
            raise InvalidInput(f"machine_id: {MACHINE_ID_RULE}", field="machine_id")
        recovered: list[Task] = []
        with self._uow() as uow:
            previous_instance, queue_url = uow.machines.record_heartbeat(hb)
            new_process = previous_instance != hb.agent_instance
            if queue_url is None or new_process:
                queue_url = self._queues.ensure_machine_queue(hb.machine_id)
                uow.machines.set_queue_url(hb.machine_id, queue_url)
            if new_process or hb.status == "offline":
                live = None if hb.status == "offline" else hb.agent_instance
                recovered = self._recover_orphans(uow, hb.machine_id, live)
            if hb.status == "online" and (recovered or hb.active_tasks < hb.max_concurrent):
                self._offer_waiting_after(uow, (hb.machine_id,))
            uow.commit()
        return Registration(hb.machine_id, queue_url, self._endpoint, self._region, self._policy.heartbeat_s,
                            self._policy.offline_after_s, tuple(t.id for t in recovered))

    def _recover_orphans(self, uow: TasksUnitOfWork, machine_id: str,
                         live_instance: str | None) -> list[Task]:
        out = []
        for task in uow.tasks.orphans_of(machine_id, live_instance):
            updated, events = recover_task(uow, task, "the agent running it stopped", self._deps.clock())
            if updated is not None:
                out.append(updated)
                self._announce(uow, updated, events)
                get_logger().warning("orphaned task recovered", extra={
                    "task_id": task.id, "machine_id": machine_id, "status": updated.status.value})
        for task in uow.tasks.dispatched_to(machine_id):
            updated, events = requeue_dispatched(uow, task, "its agent stopped before claiming it")
            if updated is not None:
                self._announce(uow, updated, events)
        for session in uow.sessions.open_on_machine(machine_id):
            uow.sessions.set_status(session.id, SessionStatus.FAILED, error="the agent restarted")
        return out

    def list_machines(self) -> list[dict[str, Any]]:
        with self._uow() as uow:
            return [self._describe(r) for r in uow.machines.records()]

    def machine_for(self, project: str) -> str | None:
        """The machine a task of `project` would be offered to now (`machine_with_code`)."""
        with self._uow() as uow:
            views = [r.view for r in uow.machines.records()]
        return machine_with_code(views, project, self._policy.offline_after_s)

    def _describe(self, record: MachineRecord) -> dict[str, Any]:
        view = record.view
        return {
            "id": view.id, "status": online_status(view, self._policy.offline_after_s),
            "reported_status": view.reported_status, "active_tasks": record.active_tasks,
            "assigned_tasks": view.assigned_tasks, "paused": view.paused,
            "max_concurrent": view.max_concurrent,
            "engine_priority": list(view.engines), "projects": list(view.projects), "repos": list(view.repos),
            "hostname": record.hostname, "agent_version": record.agent_version,
            "seconds_since_heartbeat": round(view.seconds_since_heartbeat, 1),
            "last_heartbeat_at": record.last_heartbeat_at.isoformat(),
        }

    def pause(self, machine_id: str, paused: bool = True) -> str:
        """Stop (or resume) offering new tasks to a machine; its running tasks go on."""
        with self._uow() as uow:
            if not uow.machines.set_paused(machine_id, paused):
                raise NotFound(f"no machine {machine_id!r}")
            if not paused:
                self._offer_waiting_after(uow, (machine_id,))
            uow.commit()
        get_logger().info("machine paused" if paused else "machine resumed", extra={"machine_id": machine_id})
        return f"machine {machine_id} {'paused: no new tasks until resumed' if paused else 'resumed'}"

    def is_online(self, machine_id: str) -> bool:
        with self._uow() as uow:
            records = uow.machines.records(machine_id)
        return bool(records) and records[0].view.online(self._policy.offline_after_s)


def require_registered(uow: TasksUnitOfWork, machine_id: str) -> None:
    """Refuse a machine id that is malformed (400) or that no agent ever registered (404)."""
    if not valid_machine_id(machine_id):
        raise InvalidInput(f"machine: {machine_id!r} is not a machine id ({MACHINE_ID_RULE})",
                           field="machine")
    if not uow.machines.records(machine_id):
        raise NotFound(f"no machine {machine_id!r} is registered: name a machine whose agent has sent a "
                       "heartbeat (`itachi machines` lists them), or none to let the server choose",
                       field="machine")
