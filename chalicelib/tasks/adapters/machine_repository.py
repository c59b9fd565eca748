"""Postgres access to `machines` (the registry refreshed by agent heartbeats)."""

from __future__ import annotations

from typing import Any

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.tasks.domain.machine_records import Heartbeat, MachineRecord
from chalicelib.tasks.domain.machine_selection import MachineView


class MachineRepository(PostgresRepository):
    """The `Machines` port over one connection (bound by the unit of work)."""

    def record_heartbeat(self, hb: Heartbeat) -> tuple[str | None, str | None]:
        """Upsert the machine; return (previous agent instance, queue URL) as stored before."""
        previous = self._conn.execute(
            "SELECT agent_instance, queue_url FROM machines WHERE id = %s FOR UPDATE", (hb.machine_id,),
        ).fetchone()
        self._conn.execute(
            "INSERT INTO machines (id, status, agent_instance, active_tasks, max_concurrent, engine_priority,"
            " projects, repos, hostname, agent_version, last_heartbeat_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now())"
            " ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status,"
            " agent_instance = EXCLUDED.agent_instance, active_tasks = EXCLUDED.active_tasks,"
            " max_concurrent = EXCLUDED.max_concurrent, engine_priority = EXCLUDED.engine_priority,"
            " projects = EXCLUDED.projects, repos = EXCLUDED.repos, hostname = EXCLUDED.hostname,"
            " agent_version = EXCLUDED.agent_version, last_heartbeat_at = now()",
            (hb.machine_id, hb.status, hb.agent_instance, hb.active_tasks, hb.max_concurrent,
             list(hb.engine_priority), list(hb.projects), list(hb.repos), hb.hostname, hb.agent_version),
        )
        if previous is None:
            return None, None
        return previous["agent_instance"], previous["queue_url"]

    def set_queue_url(self, machine_id: str, url: str) -> None:
        self._conn.execute("UPDATE machines SET queue_url = %s WHERE id = %s", (url, machine_id))

    def set_paused(self, machine_id: str, paused: bool) -> bool:
        """Pause or resume a registered machine; False if no such machine."""
        row = self._conn.execute(
            "INSERT INTO machine_controls (machine_id, paused) SELECT id, %s FROM machines WHERE id = %s"
            " ON CONFLICT (machine_id) DO UPDATE SET paused = EXCLUDED.paused, updated_at = now()"
            " RETURNING machine_id", (paused, machine_id)).fetchone()
        return row is not None

    def records(self, machine_id: str | None = None) -> list[MachineRecord]:
        """Every machine (or one) with the server's count of tasks assigned to it."""
        rows = self._conn.execute(
            "SELECT m.*, coalesce(c.paused, false) AS paused,"
            " extract(epoch FROM now() - m.last_heartbeat_at) AS age,"
            " (SELECT count(*) FROM tasks t WHERE t.machine_id = m.id"
            "  AND t.status IN ('dispatched', 'running')) AS assigned"
            " FROM machines m LEFT JOIN machine_controls c ON c.machine_id = m.id"
            " WHERE (%(id)s::text IS NULL OR m.id = %(id)s) ORDER BY m.id",
            {"id": machine_id},
        ).fetchall()
        return [_record(r) for r in rows]


def _record(row: dict[str, Any]) -> MachineRecord:
    view = MachineView(
        id=row["id"], reported_status=row["status"], seconds_since_heartbeat=float(row["age"]),
        max_concurrent=row["max_concurrent"], assigned_tasks=int(row["assigned"]),
        engines=tuple(row["engine_priority"] or ()), projects=tuple(row["projects"] or ()),
        repos=tuple(row["repos"] or ()), paused=bool(row["paused"]),
    )
    return MachineRecord(view, row["agent_instance"], row["active_tasks"], row["queue_url"],
                         row["hostname"], row["last_heartbeat_at"], row["registered_at"],
                         row["agent_version"])
