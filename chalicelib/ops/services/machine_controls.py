"""What the server asks of a machine's agent, apart from tasks: an engine order, an update or restart.

The agent hears it in its next heartbeat's answer (`Registration.engine_priority`, `.restart`)
and acts: it adopts the order, or stops taking tasks, lets its running tasks end, updates
itself (`update`) and starts again. The first heartbeat of its next process completes the
request, and the chat that asked hears the version it came back with.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from chalicelib.kernel.errors import InvalidInput, NotFound
from chalicelib.kernel.logging import get_logger
from chalicelib.kernel.unit_of_work import UnitOfWork

KINDS = ("update", "restart")
ENGINES = ("claude", "codex", "gemini")


class ControlRecords(Protocol):
    def machine(self, machine_id: str, *, for_update: bool = False) -> dict[str, Any] | None: ...
    def set(self, machine_id: str, **values: Any) -> None: ...


class ControlsUnitOfWork(UnitOfWork, Protocol):
    @property
    def controls(self) -> ControlRecords: ...


Notify = Callable[[int, int, str], None]  # (chat id, topic id, text)


class MachineControls:
    def __init__(self, units: Callable[[], ControlsUnitOfWork], notify: Notify | None = None) -> None:
        self._units, self._notify = units, notify

    def set_engine_priority(self, machine_id: str, order: Sequence[str]) -> None:
        if not order or any(e not in ENGINES for e in order) or len(set(order)) != len(order):
            raise InvalidInput(f"engines are {', '.join(ENGINES)}, each at most once", field="order")
        with self._units() as uow:
            self._require(uow, machine_id)
            uow.controls.set(machine_id, engine_priority=list(order))
            uow.commit()

    def request_restart(self, machine_id: str, kind: str, *, chat_id: int | None = None,
                        topic_id: int = 0) -> str:
        if kind not in KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(KINDS)}", field="kind")
        request_id = uuid.uuid4().hex[:12]
        with self._units() as uow:
            row = self._require(uow, machine_id, lock=True)
            if not row["agent_instance"]:
                raise NotFound(f"machine {machine_id} has no agent running")
            uow.controls.set(machine_id, restart_id=request_id, restart_kind=kind,
                             restart_from=row["agent_instance"], version_before=row["agent_version"],
                             reply_chat_id=chat_id, reply_topic_id=topic_id or None)
            uow.commit()
        get_logger().info("machine restart requested", extra={"machine_id": machine_id, "kind": kind})
        return request_id

    def on_heartbeat(self, machine_id: str, agent_instance: str) -> dict[str, Any]:
        """What the heartbeat's answer carries; completes a restart its new process reports."""
        done: tuple[int, int, str] | None = None
        with self._units() as uow:
            row = uow.controls.machine(machine_id, for_update=True)
            if row is None:
                return {}
            restart = None
            if row["restart_id"] and row["restart_from"] != agent_instance:
                verb = "updated" if row["restart_kind"] == "update" else "restarted"
                text = (f"{machine_id} {verb} and back: version {row['version_before'] or '?'} -> "
                        f"{row['agent_version'] or '?'}")
                uow.controls.set(machine_id, restart_id=None, restart_kind=None, restart_from=None)
                if row["reply_chat_id"]:
                    done = (int(row["reply_chat_id"]), int(row["reply_topic_id"] or 0), text)
                get_logger().info("machine restart completed", extra={"machine_id": machine_id,
                                                                      "agent_version": row["agent_version"]})
            elif row["restart_id"]:
                restart = {"id": row["restart_id"], "kind": row["restart_kind"]}
            notify, finished = self._notify, done
            if notify is not None and finished is not None:
                uow.after_commit(lambda: notify(*finished))
            uow.commit()
        return {"engine_priority": list(row["engine_priority"]) if row["engine_priority"] else None,
                "restart": restart}

    @staticmethod
    def _require(uow: ControlsUnitOfWork, machine_id: str, *, lock: bool = False) -> dict[str, Any]:
        row = uow.controls.machine(machine_id, for_update=lock)
        if row is None:
            raise NotFound(f"No machine named {machine_id}.")
        return row
