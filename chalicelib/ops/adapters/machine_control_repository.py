"""Postgres access to `machine_controls` (with what `machines` says of the agent it names)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg

from chalicelib.kernel.unit_of_work import postgres_units
from chalicelib.ops.services.machine_controls import ControlsUnitOfWork

Conn = psycopg.Connection[Any]


class MachineControlRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def machine(self, machine_id: str, *, for_update: bool = False) -> dict[str, Any] | None:
        """The machine's agent (instance, version) and its controls; None if it never registered."""
        return self._conn.execute(  # type: ignore[no-any-return]
            "SELECT m.id, m.agent_instance, m.agent_version, c.engine_priority, c.restart_id, c.restart_kind,"
            " c.restart_from, c.version_before, c.reply_chat_id, c.reply_topic_id"
            " FROM machines m LEFT JOIN machine_controls c ON c.machine_id = m.id WHERE m.id = %s"
            + (" FOR UPDATE OF m" if for_update else ""), (machine_id,)).fetchone()

    def set(self, machine_id: str, **values: Any) -> None:
        columns = ", ".join(values)
        placeholders = ", ".join(f"%({k})s" for k in values)
        updates = ", ".join(f"{k} = EXCLUDED.{k}" for k in values)
        self._conn.execute(
            f"INSERT INTO machine_controls (machine_id, {columns}) VALUES (%(_id)s, {placeholders})"
            f" ON CONFLICT (machine_id) DO UPDATE SET {updates}, updated_at = now()",
            {**values, "_id": machine_id})


def controls_units(db: Any) -> Callable[[], ControlsUnitOfWork]:
    return postgres_units(db, controls=MachineControlRepository)
