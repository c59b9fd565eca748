"""Postgres access to `budget_caps`, `task_spend` and `daily_spend` (migration 0163)."""

from __future__ import annotations

from datetime import date
from typing import Any

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.tasks.domain.task_budget import BudgetCaps, Cap, added_spend

_CAP_COLUMNS: dict[Cap, str] = {"task": "task_cap_usd", "daily": "daily_cap_usd"}


def _money(value: Any) -> float | None:
    return None if value is None else float(value)


class SpendRepository(PostgresRepository):
    """The `TaskSpending` port over one connection (bound by the tasks unit of work)."""

    def caps(self, user_id: int) -> BudgetCaps:
        row = self._conn.execute("SELECT task_cap_usd, daily_cap_usd FROM budget_caps"
                                 " WHERE telegram_user_id = %s", (user_id,)).fetchone()
        return BudgetCaps(_money(row["task_cap_usd"]), _money(row["daily_cap_usd"])) if row else BudgetCaps()

    def set_cap(self, user_id: int, cap: Cap, usd: float) -> None:
        column = _CAP_COLUMNS[cap]  # one of two fixed names, never user input
        self._conn.execute(
            f"INSERT INTO budget_caps (telegram_user_id, {column}) VALUES (%s, %s)"
            f" ON CONFLICT (telegram_user_id) DO UPDATE SET {column} = EXCLUDED.{column}, updated_at = now()",
            (user_id, usd))

    def spent_on(self, user_id: int, day: date) -> float:
        row = self._conn.execute("SELECT spent_usd FROM daily_spend WHERE telegram_user_id = %s AND day = %s",
                                 (user_id, day)).fetchone()
        return float(row["spent_usd"]) if row else 0.0

    def task_spent(self, task_id: str) -> float:
        row = self._conn.execute("SELECT coalesce(sum(spent_usd), 0) AS spent FROM task_spend"
                                 " WHERE task_id = %s", (task_id,)).fetchone()
        return float(row["spent"]) if row else 0.0

    def record(self, task_id: str, attempt: int, total: float, user_id: int | None, day: date) -> float:
        """Raise the attempt's spend to `total` and the user's day by the same; return what it added."""
        self._conn.execute("INSERT INTO task_spend (task_id, attempt) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                           (task_id, attempt))
        row = self._conn.execute("SELECT spent_usd FROM task_spend WHERE task_id = %s AND attempt = %s"
                                 " FOR UPDATE", (task_id, attempt)).fetchone()
        added = added_spend(float(row["spent_usd"]) if row else 0.0, total)
        if added <= 0:
            return 0.0
        self._conn.execute("UPDATE task_spend SET spent_usd = %s, updated_at = now()"
                           " WHERE task_id = %s AND attempt = %s", (total, task_id, attempt))
        if user_id is not None:
            self._conn.execute(
                "INSERT INTO daily_spend (telegram_user_id, day, spent_usd) VALUES (%s, %s, %s)"
                " ON CONFLICT (telegram_user_id, day) DO UPDATE"
                " SET spent_usd = daily_spend.spent_usd + EXCLUDED.spent_usd", (user_id, day, added))
        return added
