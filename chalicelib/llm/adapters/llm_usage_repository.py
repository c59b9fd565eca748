"""Postgres record of LLM calls (`llm_usage`): reservations, settlements, the daily report.

Bound to one unit of work's connection. `lock_budget` takes a transaction-scoped advisory lock,
so a budget decision and its reservation commit before the next decision reads the spend.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import psycopg

from chalicelib.kernel.unit_of_work import postgres_units
from chalicelib.llm.domain.llm_budget import Spend
from chalicelib.llm.services.ports import LlmUnits

Conn = psycopg.Connection[Any]
_BUDGET_LOCK = 7_146_030  # advisory lock key: one budget decision at a time

# Spend of a day: a pending call counts its reservation, a settled one what it really used.
_SPENT_TODAY = (
    "SELECT COALESCE(SUM(CASE WHEN status = 'pending' THEN reserved_usd ELSE cost_usd END), 0) AS usd,"
    " COALESCE(SUM(CASE WHEN status = 'pending' THEN reserved_tokens"
    " ELSE prompt_tokens + completion_tokens END), 0) AS tokens"
    " FROM llm_usage WHERE day = (now() AT TIME ZONE 'utc')::date"
)


class PostgresUsageRecords:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def lock_budget(self) -> None:
        self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_BUDGET_LOCK,))

    def spent_today(self) -> Spend:
        row = self._conn.execute(_SPENT_TODAY).fetchone() or {"usd": 0, "tokens": 0}
        return Spend(usd=float(row["usd"]), tokens=int(row["tokens"]))

    def reserve(self, purpose: str, model: str, tokens: int, usd: float) -> int:
        row = self._conn.execute(
            "INSERT INTO llm_usage (purpose, model, status, reserved_tokens, reserved_usd)"
            " VALUES (%s, %s, 'pending', %s, %s) RETURNING id", (purpose, model, tokens, usd)).fetchone()
        assert row is not None
        return int(row["id"])

    def skip(self, purpose: str, model: str, reason: str) -> None:
        self._conn.execute(
            "INSERT INTO llm_usage (purpose, model, status, reserved_tokens, reserved_usd, detail)"
            " VALUES (%s, %s, 'skipped', 0, 0, %s)", (purpose, model, reason))

    def settle(self, usage_id: int, *, status: str, prompt_tokens: int, completion_tokens: int,
               cost_usd: float, attempts: int, detail: str | None = None) -> None:
        self._conn.execute(
            "UPDATE llm_usage SET status = %s, prompt_tokens = %s, completion_tokens = %s,"
            " cost_usd = %s, attempts = %s, detail = %s, settled_at = now() WHERE id = %s",
            (status, prompt_tokens, completion_tokens, cost_usd, attempts, detail, usage_id),
        )

    def by_day_and_purpose(self, days: int) -> list[dict[str, Any]]:
        rows = self._conn.execute(
            "SELECT day, purpose,"
            " COUNT(*) FILTER (WHERE status NOT IN ('skipped')) AS calls,"
            " COUNT(*) FILTER (WHERE status = 'skipped') AS skipped,"
            " COUNT(*) FILTER (WHERE status NOT IN ('ok', 'pending', 'skipped')) AS failed,"
            " COALESCE(SUM(prompt_tokens), 0) AS prompt_tokens,"
            " COALESCE(SUM(completion_tokens), 0) AS completion_tokens,"
            " COALESCE(SUM(CASE WHEN status = 'pending' THEN reserved_usd ELSE cost_usd END), 0)"
            " AS cost_usd"
            " FROM llm_usage WHERE day > (now() AT TIME ZONE 'utc')::date - %s"
            " GROUP BY day, purpose ORDER BY day DESC, purpose",
            (days,),
        ).fetchall()
        return [_row(r) for r in rows]


def llm_units(db: Any) -> LlmUnits:
    return postgres_units(db, usage=PostgresUsageRecords)


def _row(r: dict[str, Any]) -> dict[str, Any]:
    day: date = r["day"]
    return {
        "day": day.isoformat(), "purpose": r["purpose"], "calls": int(r["calls"]),
        "skipped": int(r["skipped"]), "failed": int(r["failed"]),
        "prompt_tokens": int(r["prompt_tokens"]), "completion_tokens": int(r["completion_tokens"]),
        "cost_usd": round(float(r["cost_usd"]), 6),
    }
