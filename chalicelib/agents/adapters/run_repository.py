"""Postgres access to `agent_profiles` and `agent_runs`, and the agents' unit of work."""

from __future__ import annotations

from dataclasses import asdict
from decimal import Decimal
from typing import Any

from chalicelib.agents.adapters.inbox_repository import CronRepository, LessonRepository, MessageRepository
from chalicelib.agents.domain.profiles import Profile
from chalicelib.agents.domain.records import AgentRun, NewRun
from chalicelib.agents.services.ports import AgentsUnits
from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.kernel.unit_of_work import postgres_units

_RUN_COLUMNS = frozenset(AgentRun.__dataclass_fields__) - {"id"}
_UPDATABLE = frozenset({"stop_reason", "lessons_applied", "rated"})


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    return {k: float(v) if isinstance(v, Decimal) else v for k, v in row.items()}


def run_from_row(row: dict[str, Any]) -> AgentRun:
    values = {k: v for k, v in _plain(row).items() if k in _RUN_COLUMNS}
    for key in ("task_id", "parent_run_id"):
        values[key] = str(values[key]) if values.get(key) else None
    values["lessons_applied"] = tuple(str(v) for v in values.get("lessons_applied") or ())
    return AgentRun(id=str(row["id"]), **values)


def profile_from_row(row: dict[str, Any]) -> Profile:
    values = {k: v for k, v in _plain(row).items() if k in Profile.__dataclass_fields__}
    for key in ("allowed_tools", "memory_projects", "memory_categories"):
        values[key] = tuple(values.get(key) or ())
    return Profile(**values)


class ProfileRepository(PostgresRepository):
    def get(self, name: str) -> Profile | None:
        row = self._conn.execute("SELECT * FROM agent_profiles WHERE name = %s", (name,)).fetchone()
        return profile_from_row(row) if row else None

    def all(self) -> list[Profile]:
        return [profile_from_row(r) for r in self._conn.execute("SELECT * FROM agent_profiles ORDER BY name")]

    def upsert(self, p: Profile) -> Profile:
        row = self._one(
            "INSERT INTO agent_profiles (name, description, system_prompt, engine, model, permission_mode,"
            " allowed_tools, time_budget_s, cost_budget_usd, memory_projects, memory_categories,"
            " default_machine) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (name) DO UPDATE SET description = EXCLUDED.description,"
            " system_prompt = EXCLUDED.system_prompt, engine = EXCLUDED.engine, model = EXCLUDED.model,"
            " permission_mode = EXCLUDED.permission_mode, allowed_tools = EXCLUDED.allowed_tools,"
            " time_budget_s = EXCLUDED.time_budget_s, cost_budget_usd = EXCLUDED.cost_budget_usd,"
            " memory_projects = EXCLUDED.memory_projects, memory_categories = EXCLUDED.memory_categories,"
            " default_machine = EXCLUDED.default_machine, updated_at = now() RETURNING *",
            (p.name, p.description, p.system_prompt, p.engine, p.model, p.permission_mode,
             list(p.allowed_tools), p.time_budget_s, p.cost_budget_usd, list(p.memory_projects),
             list(p.memory_categories), p.default_machine))
        return profile_from_row(row)

    def delete(self, name: str) -> bool:
        return self._conn.execute("DELETE FROM agent_profiles WHERE name = %s", (name,)).rowcount > 0


class RunRepository(PostgresRepository):
    def insert(self, run_id: str, new: NewRun) -> tuple[AgentRun, bool]:
        row, fresh = self._insert_once("agent_runs", {"id": run_id, **asdict(new)})
        return run_from_row(row), fresh

    def get(self, run_id: str, *, for_update: bool = False) -> AgentRun | None:
        lock = " FOR UPDATE" if for_update else ""
        row = self._conn.execute(f"SELECT * FROM agent_runs WHERE id = %s{lock}", (run_id,)).fetchone()
        return run_from_row(row) if row else None

    def by_task(self, task_id: str) -> AgentRun | None:
        row = self._conn.execute("SELECT * FROM agent_runs WHERE task_id = %s", (task_id,)).fetchone()
        return run_from_row(row) if row else None

    def ids_with_prefix(self, prefix: str) -> list[str]:
        rows = self._conn.execute("SELECT id FROM agent_runs WHERE id::text LIKE %s LIMIT 2",
                                  (prefix.lower() + "%",)).fetchall()
        return [str(r["id"]) for r in rows]

    def set_task(self, run_id: str, task_id: str) -> None:
        self._conn.execute("UPDATE agent_runs SET task_id = %s WHERE id = %s AND task_id IS NULL",
                           (task_id, run_id))

    def search(self, *, status: str | None, profile: str | None, limit: int) -> list[AgentRun]:
        rows = self._conn.execute(
            "SELECT * FROM agent_runs WHERE (%(s)s::text IS NULL OR status = %(s)s)"
            " AND (%(p)s::text IS NULL OR profile = %(p)s) ORDER BY created_at DESC LIMIT %(n)s",
            {"s": status, "p": profile, "n": limit}).fetchall()
        return [run_from_row(r) for r in rows]

    def latest_active(self, profile: str) -> AgentRun | None:
        row = self._conn.execute("SELECT * FROM agent_runs WHERE profile = %s AND status = 'active'"
                                 " ORDER BY created_at DESC LIMIT 1", (profile,)).fetchone()
        return run_from_row(row) if row else None

    def update(self, run_id: str, **values: object) -> AgentRun | None:
        if not values or not set(values) <= _UPDATABLE:
            raise ValueError(f"cannot update {sorted(set(values) - _UPDATABLE)}")
        sets = ", ".join(f"{column} = %({column})s" for column in values)
        row = self._conn.execute(f"UPDATE agent_runs SET {sets} WHERE id = %(id)s RETURNING *",
                                 {**values, "id": run_id}).fetchone()
        return run_from_row(row) if row else None

    def finish(self, run_id: str, status: str, summary: str | None,
               cost_usd: float | None) -> AgentRun | None:
        row = self._conn.execute(
            "UPDATE agent_runs SET status = %s, result_summary = %s, cost_usd = %s, finished_at = now()"
            " WHERE id = %s AND status = 'active' RETURNING *",
            (status, (summary or "")[:20_000] or None, cost_usd, run_id)).fetchone()
        return run_from_row(row) if row else None


def agents_units(db: Any) -> AgentsUnits:
    return postgres_units(db, profiles=ProfileRepository, runs=RunRepository, messages=MessageRepository,
                          cron=CronRepository, lessons=LessonRepository)
