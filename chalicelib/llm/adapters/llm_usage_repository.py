"""Postgres record of LLM calls: reserve before a call, settle after it, report by day and purpose.

`reserve` checks the budget and records the reservation in one transaction under an advisory
lock, so two workers cannot both take the last dollar of the day.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from chalicelib.kernel.database import Database
from chalicelib.llm.domain.llm_budget import Spend, Verdict

_BUDGET_LOCK = 7_146_030  # advisory lock key: one budget decision at a time

# Spend of a day: a pending call counts its reservation, a settled one what it really used.
_SPENT_TODAY = (
    "SELECT COALESCE(SUM(CASE WHEN status = 'pending' THEN reserved_usd ELSE cost_usd END), 0) AS usd,"
    " COALESCE(SUM(CASE WHEN status = 'pending' THEN reserved_tokens"
    " ELSE prompt_tokens + completion_tokens END), 0) AS tokens"
    " FROM llm_usage WHERE day = (now() AT TIME ZONE 'utc')::date"
)


class LlmUsageRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def spent_today(self) -> Spend:
        with self._db.connection() as conn:
            row = conn.execute(_SPENT_TODAY).fetchone() or {"usd": 0, "tokens": 0}
        return Spend(usd=float(row["usd"]), tokens=int(row["tokens"]))

    def reserve(self, purpose: str, model: str, tokens: int, usd: float,
                decide: Callable[[Spend], Verdict]) -> tuple[int | None, Verdict]:
        """Record a pending call if `decide(spent)` allows it, else a skipped one; return (id, verdict)."""
        with self._db.connection() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_BUDGET_LOCK,))
            row = conn.execute(_SPENT_TODAY).fetchone() or {"usd": 0, "tokens": 0}
            verdict = decide(Spend(usd=float(row["usd"]), tokens=int(row["tokens"])))
            status = "pending" if verdict.allowed else "skipped"
            inserted = conn.execute(
                "INSERT INTO llm_usage (purpose, model, status, reserved_tokens, reserved_usd, detail)"
                " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
                (purpose, model, status, tokens if verdict.allowed else 0,
                 usd if verdict.allowed else 0, None if verdict.allowed else verdict.reason),
            ).fetchone()
        assert inserted is not None
        return (int(inserted["id"]) if verdict.allowed else None), verdict

    def settle(self, usage_id: int, *, status: str, prompt_tokens: int, completion_tokens: int,
               cost_usd: float, attempts: int, detail: str | None = None) -> None:
        """Replace a reservation by what the call really used (an error that reached no model costs 0)."""
        with self._db.connection() as conn:
            conn.execute(
                "UPDATE llm_usage SET status = %s, prompt_tokens = %s, completion_tokens = %s,"
                " cost_usd = %s, attempts = %s, detail = %s, settled_at = now() WHERE id = %s",
                (status, prompt_tokens, completion_tokens, cost_usd, attempts, detail, usage_id),
            )

    def by_day_and_purpose(self, days: int) -> list[dict[str, Any]]:
        """Rows of {day, purpose, calls, skipped, failed, prompt_tokens, completion_tokens, cost_usd}."""
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT day, purpose,"
                " COUNT(*) FILTER (WHERE status NOT IN ('skipped')) AS calls,"
                " COUNT(*) FILTER (WHERE status = 'skipped') AS skipped,"
                " COUNT(*) FILTER (WHERE status IN ('error', 'timeout', 'malformed')) AS failed,"
                " COALESCE(SUM(prompt_tokens), 0) AS prompt_tokens,"
                " COALESCE(SUM(completion_tokens), 0) AS completion_tokens,"
                " COALESCE(SUM(CASE WHEN status = 'pending' THEN reserved_usd ELSE cost_usd END), 0)"
                " AS cost_usd"
                " FROM llm_usage WHERE day > (now() AT TIME ZONE 'utc')::date - %s"
                " GROUP BY day, purpose ORDER BY day DESC, purpose",
                (days,),
            ).fetchall()
        return [_row(r) for r in rows]


def _row(r: dict[str, Any]) -> dict[str, Any]:
    day: date = r["day"]
    return {
        "day": day.isoformat(), "purpose": r["purpose"], "calls": int(r["calls"]),
        "skipped": int(r["skipped"]), "failed": int(r["failed"]),
        "prompt_tokens": int(r["prompt_tokens"]), "completion_tokens": int(r["completion_tokens"]),
        "cost_usd": round(float(r["cost_usd"]), 6),
    }
