"""Chat users' cost caps: show and set them, admit a new task under them, record what tasks spend.

A user sets their own caps; an admin (TELEGRAM_ADMIN_USERS) may set anyone's. Spend is recorded
from the running totals the agent reports (`domain/task_budget.py`), in the transaction that
stores the report, so a retried report adds nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from chalicelib.kernel.errors import Forbidden
from chalicelib.tasks.domain.task_budget import (
    BUDGET_OPTION,
    Allowance,
    BudgetCaps,
    Cap,
    allowance,
    budget_owner,
    reported_total,
)
from chalicelib.tasks.domain.task_model import NewTask, Task
from chalicelib.tasks.services.ports import TasksUnitOfWork
from chalicelib.tasks.services.task_deps import TaskDeps, TaskUseCase
from chalicelib.tasks.services.tasks import TaskService


@dataclass(frozen=True)
class BudgetStatus:
    user_id: int
    caps: BudgetCaps  # in force: the user's own, else the defaults
    own: BudgetCaps  # what the user set (None: the default)
    spent_today: float


class TaskBudgets(TaskUseCase):
    def __init__(self, deps: TaskDeps, tasks: TaskService, defaults: BudgetCaps,
                 admins: Collection[int] = ()) -> None:
        super().__init__(deps)
        self._tasks, self._defaults, self._admins = tasks, defaults, frozenset(admins)

    def status(self, user_id: int) -> BudgetStatus:
        with self._uow() as uow:
            own = uow.spending.caps(user_id)
            spent = uow.spending.spent_on(user_id, self._deps.clock().date())
        return BudgetStatus(user_id, own.over(self._defaults), own, spent)

    def set_cap(self, actor_id: int, user_id: int, cap: Cap, usd: float) -> BudgetStatus:
        """Set one of `user_id`'s caps (0: none); only the user themself or an admin may."""
        if actor_id != user_id and actor_id not in self._admins:
            raise Forbidden("Only an admin (TELEGRAM_ADMIN_USERS) may set another user's caps.")
        with self._uow() as uow:
            uow.spending.set_cap(user_id, cap, usd)
            uow.commit()
        return self.status(user_id)

    def allowance(self, user_id: int) -> Allowance:
        """What a new task of the user may spend; DailyCapSpent when the day's cap is spent."""
        status = self.status(user_id)
        return allowance(status.caps, status.spent_today)

    def create_task(self, user_id: int, new: NewTask, admitted: Allowance | None = None) -> Task:
        """Create the user's task with what it may spend (`admitted`, else worked out now)."""
        admitted = admitted or self.allowance(user_id)
        options = {**new.engine_options, BUDGET_OPTION: admitted.engine_option(user_id)}
        return self._tasks.create(replace(new, cost_budget_usd=admitted.usd, engine_options=options))

    def task_spent(self, task_id: str) -> float:
        with self._uow() as uow:
            return uow.spending.task_spent(task_id)


def record_spend(uow: TasksUnitOfWork, task: Task, attempt: int, datas: Sequence[Mapping[str, Any]],
                 day: date) -> float:
    """Record the running cost a report of `task`'s attempt carries, in `uow`; return what it added."""
    total = reported_total(datas)
    if total is None:
        return 0.0
    return uow.spending.record(task.id, attempt, total, budget_owner(task.engine_options), day)
