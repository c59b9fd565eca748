"""A run's memory scope (pure rules) and the cost guard's price estimate."""

from __future__ import annotations

import json

import pytest

from agent.tasks.cost_guard import CostGuard, estimate_usd
from chalicelib.contracts.engine_events import parse_line
from chalicelib.memory.domain.memory_scope import MemoryScope


def test_a_scope_reads_the_requested_project_only_when_it_is_one_of_its_own() -> None:
    scope = MemoryScope(("ledger", "billing"), ("fact",))
    assert scope.projects_for("ledger") == ("ledger",)
    assert scope.projects_for("payments") == ("ledger", "billing")
    assert scope.projects_for(None) == ("ledger", "billing")
    assert not scope.reads_global and MemoryScope(("ledger", "_global")).reads_global
    assert MemoryScope().projects_for("payments") == ("payments",) and MemoryScope().unlimited


def test_a_category_outside_the_scope_answers_nothing_and_none_asked_means_the_scopes() -> None:
    scope = MemoryScope((), ("fact", "project_rule"))
    assert scope.categories_for("decision") == ()
    assert scope.categories_for("fact") == ("fact",)
    assert scope.categories_for(None) == ("fact", "project_rule")
    assert MemoryScope().categories_for(None) is None


def test_the_scope_comes_from_a_runs_engine_options_and_ignores_what_is_not_a_list_of_names() -> None:
    options = {"memory_scope": {"projects": ["ledger", 3, ""], "categories": "fact"}}
    assert MemoryScope.from_options(options) == MemoryScope(("ledger",), ())
    assert MemoryScope.from_options({}).unlimited and MemoryScope.from_options(None).unlimited


def test_a_briefing_outside_the_scope_is_empty_and_its_memory_parts_follow_the_categories() -> None:
    briefing = {"project": "ledger", "recent_decisions": ["cents"], "active_patterns": ["repo"],
                "style": "black", "active_tasks": [{"id": "t"}]}
    assert MemoryScope(("ledger",)).briefing("payments", briefing) == {"project": "payments"}
    narrowed = MemoryScope(("ledger",), ("decision",)).briefing("ledger", briefing)
    assert narrowed["recent_decisions"] == ["cents"] and narrowed["active_patterns"] == []
    assert narrowed["style"] is None and narrowed["active_tasks"] == [{"id": "t"}]
    assert MemoryScope((), ("fact",)).rules("ledger", [{"rule": "r"}]) == []
    assert MemoryScope((), ("project_rule",)).rules("ledger", [{"rule": "r"}]) == [{"rule": "r"}]


@pytest.mark.parametrize(("model", "usd"), [("claude-sonnet-4-5-20250929", 3.0), ("claude-opus-4-1", 15.0),
                                            ("claude-opus-4-5", 5.0), ("claude-3-5-haiku", 0.8),
                                            ("claude-haiku-4-5", 1.0), ("", 3.0)])
def test_a_million_input_tokens_cost_the_models_list_price(model: str, usd: float) -> None:
    assert estimate_usd(model, {"input_tokens": 1_000_000}) == pytest.approx(usd)


def test_every_kind_of_token_counts_and_odd_values_do_not() -> None:
    usage = {"input_tokens": 1000, "output_tokens": 1000, "cache_creation_input_tokens": 1000,
             "cache_read_input_tokens": 1000, "service_tier": "standard"}
    assert estimate_usd("claude-sonnet-4", usage) == pytest.approx((3 + 15 + 3.75 + 0.3) / 1000)
    assert estimate_usd("claude-sonnet-4", {"input_tokens": True, "output_tokens": "9"}) == 0.0


class Runner:
    """What the guard calls on its task's runner: the notice and the stop."""

    def __init__(self) -> None:
        self.notices: list[str] = []
        self.stopped: list[str] = []

    def event(self, kind: str, text: str = "", data: dict[str, object] | None = None) -> None:
        if kind == "notice":
            self.notices.append(text)

    def stop(self, reason: str) -> None:
        self.stopped.append(reason)


def assistant(message_id: str, input_tokens: int) -> str:
    return json.dumps({"type": "assistant", "message": {"id": message_id, "model": "claude-sonnet-4-5",
                                                        "usage": {"input_tokens": input_tokens}}})


def result(total: float) -> str:
    return json.dumps({"type": "result", "subtype": "success", "result": "ok", "total_cost_usd": total})


def test_the_guard_counts_a_sessions_running_total_once_and_stops_mid_turn_past_the_budget() -> None:
    runner = Runner()
    guard = CostGuard(runner, "1.00")  # type: ignore[arg-type]
    guard.engine_started()
    for line in (assistant("m1", 100_000), assistant("m1", 100_000), result(0.40), assistant("m2", 100_000),
                 result(0.70)):
        guard.see(line, parse_line("claude", line))
    assert guard.spent_usd == pytest.approx(0.70) and not runner.stopped  # totals, not a sum of them
    guard.see(assistant("m3", 200_000), [])
    assert guard.spent_usd == pytest.approx(1.30) and runner.stopped == ["timed_out"]
    assert runner.notices == ["cost budget of $1 spent ($1.3000 so far): stopped"]
    guard.see(assistant("m4", 900_000), [])
    assert len(runner.notices) == 1  # once


def test_a_second_engine_adds_to_what_the_first_one_spent_and_no_budget_means_no_guard() -> None:
    guard = CostGuard(Runner(), 5)  # type: ignore[arg-type]
    guard.engine_started()
    guard.see(result(0.5), parse_line("claude", result(0.5)))
    guard.engine_started()
    guard.see(result(0.25), parse_line("claude", result(0.25)))
    assert guard.spent_usd == pytest.approx(0.75)
    free = CostGuard(Runner(), None)  # type: ignore[arg-type]
    free.see(assistant("m1", 10**9), [])
    assert free.spent_usd == 0.0 and not free.tripped
