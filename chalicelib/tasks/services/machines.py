"""The machine registry: heartbeats (registration included) and the list of machines.

A heartbeat from a new agent process of a machine, or one saying the machine goes offline,
means the tasks the previous process was running have no runner any more: they are retried
or failed at once instead of waiting for their lease to run out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from chalicelib.kernel.database import Database
from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.logging import get_logger
from chalicelib.tasks.adapters.agent_session_repository import AgentSessionRepository
from chalicelib.tasks.adapters.machine_repository import Heartbeat, MachineRecord, MachineRepository
from chalicelib.tasks.adapters.task_event_repository import TaskEventRepository
from chalicelib.tasks.adapters.task_repository import TaskRepository
from chalicelib.tasks.domain.agent_session_states import SessionStatus
from chalicelib.tasks.domain.machine_selection import online_status
from chalicelib.tasks.domain.task_model import Task, TaskEvent
from chalicelib.tasks.services.dispatch import TaskDispatcher
from chalicelib.tasks.services.task_policy import TaskPolicy
from chalicelib.tasks.services.task_ports import TaskEventPublisher, TaskQueues, announce
from chalicelib.tasks.services.task_recovery import recover_task

MACHINE_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


@dataclass(frozen=True)
class Registration:
    machine_id: str
    queue_url: str
    sqs_endpoint_url: str | None
    region: str
    heartbeat_s: float
    offline_after_s: float
    recovered_tasks: tuple[str, ...]


class MachineRegistry:
    def __init__(self, db: Database, queues: TaskQueues, publisher: TaskEventPublisher,
                 dispatcher: TaskDispatcher, policy: TaskPolicy, *, sqs_endpoint_url: str | None,
                 region: str) -> None:
        self._db, self._queues, self._publisher = db, queues, publisher
        self._dispatcher, self._policy = dispatcher, policy
        self._endpoint, self._region = sqs_endpoint_url, region
        self._machines = MachineRepository()
        self._tasks = TaskRepository()
        self._events = TaskEventRepository()
        self._sessions = AgentSessionRepository()

    def heartbeat(self, hb: Heartbeat) -> Registration:
        if not MACHINE_ID.match(hb.machine_id):
            raise InvalidInput("machine_id: 1-40 letters, digits, '-' or '_'", field="machine_id")
        recovered: list[tuple[Task, list[TaskEvent]]] = []
        with self._db.connection() as conn:
            previous_instance, queue_url = self._machines.record_heartbeat(conn, hb)
            new_process = previous_instance != hb.agent_instance
            if queue_url is None or new_process:
                queue_url = self._queues.ensure_machine_queue(hb.machine_id)
                self._machines.set_queue_url(conn, hb.machine_id, queue_url)
            if new_process or hb.status == "offline":
                live = None if hb.status == "offline" else hb.agent_instance
                recovered = self._recover_orphans(conn, hb.machine_id, live)
        for task, events in recovered:
            announce(self._publisher, task, events)
        if hb.status == "online" and (recovered or hb.active_tasks < hb.max_concurrent):
            self._dispatcher.offer_waiting()
        return Registration(hb.machine_id, queue_url, self._endpoint, self._region, self._policy.heartbeat_s,
                            self._policy.offline_after_s, tuple(t.id for t, _ in recovered))

    def _recover_orphans(self, conn: Any, machine_id: str,
                         live_instance: str | None) -> list[tuple[Task, list[TaskEvent]]]:
        out = []
        for task in self._tasks.orphans_of(conn, machine_id, live_instance):
            updated, events = recover_task(conn, task, "the agent running it stopped", self._tasks,
                                           self._events)
            if updated is not None:
                out.append((updated, events))
                get_logger().warning("orphaned task recovered", extra={
                    "task_id": task.id, "machine_id": machine_id, "status": updated.status.value})
        for session in self._sessions.open_on_machine(conn, machine_id):
            self._sessions.set_status(conn, session.id, SessionStatus.FAILED, error="the agent restarted")
        return out

    def list_machines(self) -> list[dict[str, Any]]:
        with self._db.connection() as conn:
            return [self._describe(r) for r in self._machines.records(conn)]

    def _describe(self, record: MachineRecord) -> dict[str, Any]:
        view = record.view
        return {
            "id": view.id, "status": online_status(view, self._policy.offline_after_s),
            "reported_status": view.reported_status, "active_tasks": record.active_tasks,
            "assigned_tasks": view.assigned_tasks, "max_concurrent": view.max_concurrent,
            "engine_priority": list(view.engines), "projects": list(view.projects), "repos": list(view.repos),
            "hostname": record.hostname, "seconds_since_heartbeat": round(view.seconds_since_heartbeat, 1),
            "last_heartbeat_at": record.last_heartbeat_at.isoformat(),
        }

    def is_online(self, machine_id: str) -> bool:
        with self._db.connection() as conn:
            records = self._machines.records(conn, machine_id)
        return bool(records) and records[0].view.online(self._policy.offline_after_s)

