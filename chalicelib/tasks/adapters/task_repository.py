"""Postgres access to `tasks`. Every status change is a conditional UPDATE, so two callers
racing on one task (a duplicate SQS delivery, a sweep and a late agent) cannot both win."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from psycopg.types.json import Jsonb

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.tasks.domain.task_model import NewTask, Task, TaskResult
from chalicelib.tasks.domain.task_states import TaskStatus


def task_from_row(row: dict[str, Any]) -> Task:
    values: dict[str, Any] = {k: (float(v) if isinstance(v, Decimal) else v) for k, v in row.items()
                              if k in Task.__dataclass_fields__}
    values["id"] = str(row["id"])
    values["status"] = TaskStatus(row["status"])
    values["files_changed"] = tuple(row.get("files_changed") or ())
    return Task(**values)


class TaskRepository(PostgresRepository):
    """The `Tasks` port over one connection (bound by the unit of work)."""

    def insert(self, task_id: str, new: NewTask) -> tuple[Task, bool]:
        """Insert a queued task; with an idempotency key already used, return (existing, False)."""
        row, fresh = self._insert_once("tasks", {"id": task_id, **asdict(new), "current_engine": new.engine,
                                                 "engine_options": Jsonb(new.engine_options)})
        return task_from_row(row), fresh

    def get(self, task_id: str, *, for_update: bool = False) -> Task | None:
        lock = " FOR UPDATE" if for_update else ""
        row = self._conn.execute(f"SELECT * FROM tasks WHERE id = %s{lock}", (task_id,)).fetchone()
        return task_from_row(row) if row else None

    def ids_with_prefix(self, prefix: str) -> list[str]:
        rows = self._conn.execute("SELECT id FROM tasks WHERE id::text LIKE %s LIMIT 2",
                                  (prefix.lower() + "%",)).fetchall()
        return [str(r["id"]) for r in rows]

    def search(self, *, status: str | None, project: str | None, machine: str | None,
             limit: int) -> list[Task]:
        rows = self._conn.execute(
            "SELECT * FROM tasks WHERE (%(s)s::text IS NULL OR status = %(s)s)"
            " AND (%(p)s::text IS NULL OR project = %(p)s)"
            " AND (%(m)s::text IS NULL OR machine_id = %(m)s)"
            " ORDER BY created_at DESC LIMIT %(n)s",
            {"s": status, "p": project, "m": machine, "n": limit},
        ).fetchall()
        return [task_from_row(r) for r in rows]

    def update(self, task_id: str, *, where_status: tuple[str, ...],
               where: dict[str, Any] | None = None, **values: Any) -> Task | None:
        """Set `values` if the task is in one of `where_status` (and matches `where`); None if not."""
        sets = ", ".join(f"{column} = %({column})s" for column in values)
        conditions = "".join(f" AND {column} = %(w_{column})s" for column in (where or {}))
        params = {**values, **{f"w_{k}": v for k, v in (where or {}).items()},
                  "id": task_id, "statuses": list(where_status)}
        row = self._conn.execute(
            f"UPDATE tasks SET {sets}, updated_at = now() WHERE id = %(id)s"
            f" AND status = ANY(%(statuses)s){conditions} RETURNING *",
            params,
        ).fetchone()
        return task_from_row(row) if row else None

    def mark_dispatched(self, task_id: str, machine_id: str) -> Task | None:
        row = self._conn.execute(
            "UPDATE tasks SET status = 'dispatched', machine_id = %s, dispatch_seq = dispatch_seq + 1,"
            " dispatched_at = now(), updated_at = now() WHERE id = %s AND status = 'queued' RETURNING *",
            (machine_id, task_id),
        ).fetchone()
        return task_from_row(row) if row else None

    def claim(self, task_id: str, machine_id: str, dispatch_seq: int,
              agent_instance: str, lease_s: float) -> Task | None:
        """dispatched -> running for the machine and dispatch it was sent with; None if stale."""
        row = self._conn.execute(
            "UPDATE tasks SET status = 'running', attempts = attempts + 1, agent_instance = %s,"
            " lease_expires_at = now() + make_interval(secs => %s), started_at = now(),"
            " updated_at = now() WHERE id = %s AND status = 'dispatched' AND machine_id = %s"
            " AND dispatch_seq = %s RETURNING *",
            (agent_instance, lease_s, task_id, machine_id, dispatch_seq),
        ).fetchone()
        return task_from_row(row) if row else None

    def renew_lease(self, task_id: str, machine_id: str, attempt: int,
                    lease_s: float) -> Task | None:
        row = self._conn.execute(
            "UPDATE tasks SET lease_expires_at = now() + make_interval(secs => %s), updated_at = now()"
            " WHERE id = %s AND status = 'running' AND machine_id = %s AND attempts = %s RETURNING *",
            (lease_s, task_id, machine_id, attempt),
        ).fetchone()
        return task_from_row(row) if row else None

    def finish(self, task_id: str, machine_id: str, attempt: int,
               result: TaskResult) -> Task | None:
        return self.update(
            task_id, where_status=("running",), where={"machine_id": machine_id, "attempts": attempt},
            status=result.status, result_summary=result.summary,
            files_changed=list(result.files_changed), exit_code=result.exit_code,
            cost_usd=result.cost_usd, error=result.error, worktree=result.worktree,
            branch=result.branch, lease_expires_at=None, finished_at=datetime.now(UTC),
        )

    def queued_ids(self, per_machine: int, machines: Sequence[str]) -> list[str]:
        # One window over the queued tasks these machines may take: the oldest of each (machine,
        # project), a task for any machine counting as machine NULL.
        rows = self._conn.execute(
            "SELECT id FROM (SELECT id, created_at, row_number() OVER ("
            "  PARTITION BY target_machine, project ORDER BY created_at, id) AS n FROM tasks"
            "  WHERE status = 'queued' AND (target_machine IS NULL OR target_machine = ANY(%s))) q"
            " WHERE n <= %s ORDER BY created_at, id", (list(machines), per_machine)).fetchall()
        return [str(r["id"]) for r in rows]

    def lost_leases(self, limit: int = 100) -> list[Task]:
        """Running tasks whose agent stopped renewing (locked; other sweepers skip them)."""
        return self._locked("status = 'running' AND lease_expires_at < now() ORDER BY lease_expires_at"
                            " LIMIT %s", (limit,))

    def orphans_of(self, machine_id: str, live_instance: str | None) -> list[Task]:
        """Running tasks of a machine claimed by an agent process other than `live_instance`."""
        return self._locked("status = 'running' AND machine_id = %s AND agent_instance IS DISTINCT FROM %s",
                            (machine_id, live_instance))

    def overdue(self, grace_s: float, limit: int = 100) -> list[Task]:
        """Running tasks past their time budget plus `grace_s` (the agent failed to stop them)."""
        return self._locked("status = 'running' AND started_at + make_interval(secs => time_budget_s + %s)"
                            " < now() LIMIT %s", (grace_s, limit))

    def dispatched_to(self, machine_id: str) -> list[Task]:
        """Tasks dispatched to the machine and not claimed yet (locked; rows held elsewhere skipped)."""
        return self._locked("status = 'dispatched' AND machine_id = %s", (machine_id,))

    def stuck_dispatched(self, older_than_s: float, limit: int = 100) -> list[Task]:
        return self._locked("status = 'dispatched' AND dispatched_at < now() - make_interval(secs => %s)"
                            " LIMIT %s", (older_than_s, limit))

    def _locked(self, condition: str, params: tuple[Any, ...]) -> list[Task]:
        """The tasks matching `condition`, locked; rows another transaction holds are skipped."""
        rows = self._conn.execute(f"SELECT * FROM tasks WHERE {condition} FOR UPDATE SKIP LOCKED",
                                  params).fetchall()
        return [task_from_row(r) for r in rows]
