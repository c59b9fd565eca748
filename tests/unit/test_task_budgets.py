"""Cost caps of chat users' tasks: the rule, /budget's parsing, the guard's notice, and spend recording."""

from __future__ import annotations

import json

import pytest

from agent.tasks.cost_guard import CostGuard, turn_usage_usd
from chalicelib.contracts.engine_events import parse_line
from chalicelib.kernel.errors import Forbidden, InvalidInput
from chalicelib.llm.domain.llm_budget import cost_usd
from chalicelib.tasks.domain.task_budget import (
    Allowance,
    BudgetCaps,
    DailyCapSpent,
    allowance,
    parse_usd,
    reported_total,
)
from chalicelib.tasks.domain.task_model import NewEvent, NewTask, TaskResult
from chalicelib.telegram.domain.bot_commands import BudgetRequest, parse_budget
from tests.support.task_world import ADMIN_USER, TaskWorld

ALICE, BOB = 101, 202


def test_a_new_task_may_spend_its_cap_or_what_is_left_of_the_day_whichever_is_smaller() -> None:
    caps = BudgetCaps(2.5, 20.0)
    assert allowance(caps, 0.0) == Allowance(2.5, "task", 2.5)
    assert allowance(caps, 18.75) == Allowance(1.25, "daily", 20.0)
    assert allowance(BudgetCaps(0.0, 0.0), 1_000.0) == Allowance(None, None, None)  # 0: no cap
    assert allowance(BudgetCaps(0.0, 20.0), 5.0) == Allowance(15.0, "daily", 20.0)


def test_a_new_task_is_refused_once_the_daily_cap_is_spent() -> None:
    with pytest.raises(DailyCapSpent, match=r"daily cap of \$20.00 is spent \(\$20.10 today"):
        allowance(BudgetCaps(2.5, 20.0), 20.1)
    with pytest.raises(DailyCapSpent):
        allowance(BudgetCaps(None, 20.0), 20.0)


def test_a_users_own_caps_replace_the_defaults_one_by_one() -> None:
    assert BudgetCaps(None, 8.0).over(BudgetCaps(5.0, 20.0)) == BudgetCaps(5.0, 8.0)
    assert BudgetCaps(0.0, None).over(BudgetCaps(5.0, 20.0)) == BudgetCaps(0.0, 20.0)


def test_the_reported_total_is_the_largest_running_cost_of_a_batch() -> None:
    assert reported_total([{"cost_usd": 0.5}, {"text": "x"}, {"cost_usd": 1.25}, {"cost_usd": True}]) == 1.25
    assert reported_total([{"cost_usd": None}, {}]) is None


def test_budget_takes_a_cap_an_amount_and_for_an_admin_a_user_id() -> None:
    assert parse_budget([]) == BudgetRequest()
    assert parse_budget(["task", "2.50"]) == BudgetRequest("task", 2.5)
    assert parse_budget(["DAILY", "$20", "202"]) == BudgetRequest("daily", 20.0, 202)
    for bad in (["weekly", "3"], ["task"], ["task", "lots"], ["task", "-1"], ["daily", "5", "bob"]):
        with pytest.raises(InvalidInput, match="Usage: /budget"):
            parse_budget(bad)
    assert parse_usd("0") == 0.0


class Runner:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, dict[str, object]]] = []
        self.stopped: list[str] = []

    def event(self, kind: str, text: str = "", data: dict[str, object] | None = None) -> None:
        self.events.append((kind, text, data or {}))

    def stop(self, reason: str) -> None:
        self.stopped.append(reason)


def spend_line(n: int, usd: float) -> str:
    usage = {"output_tokens": round(usd * 1_000_000 / 15)}  # Sonnet's output price
    return json.dumps({"type": "assistant", "message": {"id": f"m{n}", "model": "claude-sonnet-4-5",
                                                        "usage": usage}})


def test_the_guard_names_the_daily_cap_that_stopped_a_task_and_reports_its_rising_spend() -> None:
    runner = Runner()
    guard = CostGuard(runner, 1.25, {"cap": "daily", "cap_usd": 20.0})  # type: ignore[arg-type]
    guard.engine_started()
    for n in range(4):
        guard.see(spend_line(n, 0.4), [])
    assert runner.stopped == ["timed_out"]
    costs = [data["cost_usd"] for kind, _, data in runner.events if kind == "cost"]
    assert costs == pytest.approx([0.4, 0.8, 1.2], abs=1e-4)  # each rise past 5% of the budget
    (notice,) = [(text, data) for kind, text, data in runner.events if kind == "notice"]
    assert notice[0] == ("Daily cap of $20.00 reached: stopped with $1.6000 spent by this task "
                         "($1.25 was left of today's cap)")
    assert notice[1]["cap"] == "daily" and notice[1]["cost_usd"] == pytest.approx(1.6, abs=1e-4)


def test_the_guard_names_the_task_cap() -> None:
    runner = Runner()
    guard = CostGuard(runner, 1.0, {"cap": "task", "cap_usd": 1.0})  # type: ignore[arg-type]
    for n in range(3):
        guard.see(spend_line(n, 0.4), [])
    assert [t for k, t, _ in runner.events if k == "notice"] == [
        "Task cap of $1.00 reached: stopped with $1.2000 spent"]


def test_codex_and_gemini_turns_are_priced_from_their_token_usage() -> None:
    codex = '{"type": "turn.completed", "usage": {"input_tokens": 200000, "output_tokens": 50000}}'
    runner = Runner()
    guard = CostGuard(runner, 10.0)  # type: ignore[arg-type]
    guard.engine_started()
    guard.see(codex, parse_line("codex", codex))
    assert guard.spent_usd == pytest.approx(cost_usd("codex", 200_000, 50_000)) and guard.spent_usd > 0
    assert [k for k, _, _ in runner.events] == ["cost"]  # a turn's end reports the total
    gemini = parse_line("gemini", '{"type": "result", "status": "success", '
                                  '"stats": {"input_tokens": 1000000, "output_tokens": 0}}')
    assert turn_usage_usd(gemini[0], "gpt-4o-mini") == pytest.approx(0.15)
    assert guard.final_cost(None) == pytest.approx(guard.spent_usd)


def test_a_chat_users_task_is_created_under_its_allowance_and_names_its_owner() -> None:
    world = TaskWorld()
    task = world.budgets.create_task(ALICE, NewTask("web", "fix the bug"))
    assert task.cost_budget_usd == 5.0
    assert task.engine_options["budget"] == {"cap": "task", "cap_usd": 5.0, "user_id": ALICE}


def test_spend_counts_once_per_reported_total_to_the_task_and_its_owners_day() -> None:
    world = TaskWorld()
    world.heartbeat("m1")
    task = world.budgets.create_task(ALICE, NewTask("web", "fix the bug"))
    world.dispatcher.dispatch(task.id)
    claimed = world.runs.claim(task.id, "m1", world.task(task.id).dispatch_seq, "i-m1").task
    report = [NewEvent("cost", "$1.5 spent", {"cost_usd": 1.5})]
    world.runs.record_events(claimed.id, "m1", 1, report)
    world.runs.record_events(claimed.id, "m1", 1, report)  # the agent's retry of the same report
    world.runs.record_events(claimed.id, "m1", 1, [NewEvent("cost", "", {"cost_usd": 1.0})])  # late
    assert world.budgets.status(ALICE).spent_today == pytest.approx(1.5)
    world.runs.finish(claimed.id, "m1", 1, TaskResult(status="completed", summary="done", cost_usd=2.0))
    assert world.budgets.task_spent(task.id) == pytest.approx(2.0)
    assert world.budgets.status(ALICE).spent_today == pytest.approx(2.0)
    assert world.budgets.status(BOB).spent_today == 0.0


def test_only_the_user_themself_or_an_admin_sets_a_users_caps() -> None:
    world = TaskWorld()
    assert world.budgets.set_cap(ALICE, ALICE, "daily", 8.0).caps == BudgetCaps(5.0, 8.0)
    with pytest.raises(Forbidden):
        world.budgets.set_cap(BOB, ALICE, "task", 100.0)
    assert world.budgets.set_cap(ADMIN_USER, ALICE, "task", 1.0).caps == BudgetCaps(1.0, 8.0)
    assert world.budgets.status(ALICE).own == BudgetCaps(1.0, 8.0)
    assert world.budgets.status(BOB).own == BudgetCaps()
