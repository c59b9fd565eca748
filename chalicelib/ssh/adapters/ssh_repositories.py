"""Postgres: `ssh_targets` and `ssh_runs`, bound to one unit of work's connection."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.kernel.unit_of_work import postgres_units
from chalicelib.ssh.domain.ssh_model import SshRun, SshTarget
from chalicelib.ssh.services.ports import SshUnitOfWork

_RUN_FIELDS = frozenset({"status", "exit_code", "error", "output_seq", "started_at", "finished_at"})


def _target(row: dict[str, Any]) -> SshTarget:
    return SshTarget(row["name"], row["machine_id"], row["host"], row["port"], row["username"],
                     row["key_path"], row["host_key_fingerprint"], row["platform"], row["reaches_machine"],
                     tuple(row["allowed_commands"] or ()), row["updated_at"])


def _run(row: dict[str, Any]) -> SshRun:
    return SshRun(str(row["id"]), row["target"], row["machine_id"], row["command"], row["status"],
                  row["timeout_s"], row["platform"], row["exit_code"], row["error"], row["telegram_chat_id"],
                  int(row["telegram_topic_id"]), row["requested_by"], row["output_seq"], row["created_at"],
                  row["started_at"], row["finished_at"])


class PostgresSshTargets(PostgresRepository):
    def upsert(self, t: SshTarget) -> SshTarget:
        row = self._one(
            "INSERT INTO ssh_targets (name, machine_id, host, port, username, key_path, host_key_fingerprint,"
            " platform, reaches_machine, allowed_commands) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (name) DO UPDATE SET machine_id = EXCLUDED.machine_id, host = EXCLUDED.host,"
            " port = EXCLUDED.port, username = EXCLUDED.username, key_path = EXCLUDED.key_path,"
            " host_key_fingerprint = EXCLUDED.host_key_fingerprint, platform = EXCLUDED.platform,"
            " reaches_machine = EXCLUDED.reaches_machine, allowed_commands = EXCLUDED.allowed_commands,"
            " updated_at = now() RETURNING *",
            (t.name, t.machine_id, t.host, t.port, t.user, t.key_path, t.fingerprint, t.platform,
             t.reaches_machine, list(t.allowed_commands)))
        return _target(row)

    def get(self, name: str) -> SshTarget | None:
        row = self._conn.execute("SELECT * FROM ssh_targets WHERE name = %s", (name,)).fetchone()
        return _target(row) if row else None

    def reaching(self, machine_id: str) -> list[SshTarget]:
        rows = self._conn.execute("SELECT * FROM ssh_targets WHERE reaches_machine = %s ORDER BY name",
                                  (machine_id,)).fetchall()
        return [_target(r) for r in rows]

    def listing(self) -> list[SshTarget]:
        return [_target(r) for r in self._conn.execute("SELECT * FROM ssh_targets ORDER BY name").fetchall()]

    def delete(self, name: str) -> bool:
        return self._conn.execute("DELETE FROM ssh_targets WHERE name = %s", (name,)).rowcount > 0


class PostgresSshRuns(PostgresRepository):
    def add(self, run: SshRun) -> SshRun:
        row = self._one(
            "INSERT INTO ssh_runs (id, target, machine_id, command, status, timeout_s, platform,"
            " telegram_chat_id, telegram_topic_id, requested_by)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING *",
            (run.id, run.target, run.machine_id, run.command, run.status, run.timeout_s, run.platform,
             run.chat_id, run.topic_id, run.requested_by))
        return _run(row)

    def get(self, run_id: str, *, for_update: bool = False) -> SshRun | None:
        lock = " FOR UPDATE" if for_update else ""
        row = self._conn.execute(f"SELECT * FROM ssh_runs WHERE id = %s{lock}", (run_id,)).fetchone()
        return _run(row) if row else None

    def update(self, run_id: str, **fields: Any) -> SshRun:
        unknown = set(fields) - _RUN_FIELDS
        if unknown:
            raise ValueError(f"not a run field: {sorted(unknown)}")
        sets = [f"{k} = now()" if v == "now" else f"{k} = %({k})s" for k, v in fields.items()]
        row = self._one(f"UPDATE ssh_runs SET {', '.join(sets)} WHERE id = %(id)s RETURNING *",
                        {**{k: v for k, v in fields.items() if v != "now"}, "id": run_id})
        return _run(row)

    def recent(self, limit: int) -> list[SshRun]:
        rows = self._conn.execute("SELECT * FROM ssh_runs ORDER BY created_at DESC LIMIT %s",
                                  (limit,)).fetchall()
        return [_run(r) for r in rows]


def ssh_units(db: Any) -> Callable[[], SshUnitOfWork]:
    return postgres_units(db, targets=PostgresSshTargets, runs=PostgresSshRuns)
