"""The cost caps and spend of the tasks unit of work, against the in-memory fake and real Postgres."""

from __future__ import annotations

from datetime import date

import pytest

from chalicelib.tasks.domain.task_budget import BudgetCaps
from tests.integration.test_task_repository_contract import Units, add, units  # noqa: F401 (fixture)

ALICE, BOB = 101, 202
DAY, NEXT_DAY = date(2026, 3, 1), date(2026, 3, 2)


def test_a_users_caps_are_set_one_at_a_time_and_unset_ones_stay_none(units: Units) -> None:  # noqa: F811
    with units() as uow:
        assert uow.spending.caps(ALICE) == BudgetCaps()
        uow.spending.set_cap(ALICE, "daily", 20.0)
        uow.spending.set_cap(ALICE, "task", 2.5)
        uow.spending.set_cap(ALICE, "task", 0.0)
        uow.commit()
    with units() as uow:
        assert uow.spending.caps(ALICE) == BudgetCaps(0.0, 20.0)
        assert uow.spending.caps(BOB) == BudgetCaps()


def test_a_running_total_counts_once_to_its_attempt_and_its_owners_day(units: Units) -> None:  # noqa: F811
    task, other = add(units), add(units)
    with units() as uow:
        assert uow.spending.record(task.id, 1, 1.5, ALICE, DAY) == pytest.approx(1.5)
        assert uow.spending.record(task.id, 1, 1.5, ALICE, DAY) == 0.0  # a retried report
        assert uow.spending.record(task.id, 1, 0.5, ALICE, DAY) == 0.0  # an older one, late
        assert uow.spending.record(task.id, 1, 2.0, ALICE, NEXT_DAY) == pytest.approx(0.5)
        assert uow.spending.record(task.id, 2, 0.25, ALICE, NEXT_DAY) == pytest.approx(0.25)  # a retry
        assert uow.spending.record(other.id, 1, 9.0, None, DAY) == pytest.approx(9.0)  # nobody's task
        uow.commit()
    with units() as uow:
        assert uow.spending.task_spent(task.id) == pytest.approx(2.25)
        assert uow.spending.task_spent(other.id) == pytest.approx(9.0)
        assert uow.spending.spent_on(ALICE, DAY) == pytest.approx(1.5)
        assert uow.spending.spent_on(ALICE, NEXT_DAY) == pytest.approx(0.75)
        assert uow.spending.spent_on(BOB, DAY) == 0.0


def test_spend_recorded_in_a_unit_left_without_commit_is_rolled_back(units: Units) -> None:  # noqa: F811
    task = add(units)
    with units() as uow:
        uow.spending.record(task.id, 1, 3.0, ALICE, DAY)
    with units() as uow:
        assert uow.spending.task_spent(task.id) == 0.0 and uow.spending.spent_on(ALICE, DAY) == 0.0
