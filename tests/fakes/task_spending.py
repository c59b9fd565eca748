"""Chat users' caps and task spend in memory: the `TaskSpending` port for unit tests."""

from __future__ import annotations

from datetime import date

from chalicelib.tasks.domain.task_budget import BudgetCaps, Cap, added_spend
from tests.fakes.task_tables import TaskStore


class FakeTaskSpending:
    def __init__(self, store: TaskStore) -> None:
        self._s = store

    def caps(self, user_id: int) -> BudgetCaps:
        return self._s.tables.budget_caps.get(user_id, BudgetCaps())

    def set_cap(self, user_id: int, cap: Cap, usd: float) -> None:
        old = self.caps(user_id)
        self._s.tables.budget_caps[user_id] = (BudgetCaps(usd, old.daily_usd) if cap == "task"
                                               else BudgetCaps(old.task_usd, usd))

    def spent_on(self, user_id: int, day: date) -> float:
        return self._s.tables.daily_spend.get((user_id, day), 0.0)

    def task_spent(self, task_id: str) -> float:
        return sum(usd for (task, _), usd in self._s.tables.task_spend.items() if task == task_id)

    def record(self, task_id: str, attempt: int, total: float, user_id: int | None, day: date) -> float:
        added = added_spend(self._s.tables.task_spend.get((task_id, attempt), 0.0), total)
        if added <= 0:
            return 0.0
        self._s.tables.task_spend[(task_id, attempt)] = total
        if user_id is not None:
            spend = self._s.tables.daily_spend
            spend[(user_id, day)] = spend.get((user_id, day), 0.0) + added
        return added
