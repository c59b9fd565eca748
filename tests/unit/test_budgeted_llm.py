"""The budgeted LanguageModel: budget before the call, the bill after, None instead of a crash."""

from __future__ import annotations

from chalicelib.llm.domain.llm_budget import DailyBudget
from chalicelib.llm.services.budgeted_llm import BudgetedLlm, DisabledLlm
from tests.fakes.fake_llm import InMemoryLedger, ScriptedChat

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


def make(budget: DailyBudget | None = None) -> tuple[BudgetedLlm, ScriptedChat, InMemoryLedger]:
    chat, ledger = ScriptedChat(), InMemoryLedger()
    return BudgetedLlm(chat, ledger.units, budget or DailyBudget(usd=1.0)), chat, ledger


def test_a_json_answer_is_parsed_and_billed_at_the_reported_tokens() -> None:
    llm, chat, ledger = make()
    chat.reply('{"a": 1}', prompt_tokens=1000, completion_tokens=100)

    assert llm.complete_json("test", "system", "user", SCHEMA) == {"a": 1}
    (row,) = ledger.rows
    assert (row.status, row.prompt_tokens, row.completion_tokens) == ("ok", 1000, 100)
    assert row.cost_usd == round((1000 * 0.15 + 100 * 0.60) / 1e6, 6)
    assert chat.calls[0].schema == SCHEMA


def test_json_wrapped_in_a_code_fence_is_accepted() -> None:
    llm, chat, _ = make()
    chat.reply('```json\n{"a": 2}\n```')

    assert llm.complete_json("test", "s", "u", SCHEMA) == {"a": 2}


def test_malformed_json_answers_none_and_is_still_billed() -> None:
    llm, chat, ledger = make()
    chat.reply('{"a": 1', prompt_tokens=300, completion_tokens=20)

    assert llm.complete_json("test", "s", "u", SCHEMA) is None
    assert ledger.rows[0].status == "malformed"
    assert ledger.rows[0].prompt_tokens == 300


def test_a_json_array_is_not_the_object_asked_for() -> None:
    llm, chat, ledger = make()
    chat.reply("[1, 2]")

    assert llm.complete_json("test", "s", "u", SCHEMA) is None
    assert ledger.rows[0].status == "malformed"


def test_over_budget_the_call_is_skipped_before_reaching_the_model() -> None:
    llm, chat, ledger = make(DailyBudget(usd=0.0001))

    assert llm.complete_json("extract_insights", "s", "u" * 4000, SCHEMA, max_tokens=1000) is None
    assert chat.calls == []
    (row,) = ledger.rows
    assert row.status == "skipped" and row.purpose == "extract_insights"
    assert row.detail is not None and "daily budget" in row.detail


def test_the_budget_counts_earlier_calls_of_the_day() -> None:
    llm, chat, ledger = make(DailyBudget(usd=1.0, tokens=1700))
    chat.reply("first", prompt_tokens=1500, completion_tokens=100)

    assert llm.complete_text("chat", "s", "u", max_tokens=200) == "first"
    assert llm.complete_text("chat", "s", "u", max_tokens=200) is None
    assert [r.status for r in ledger.rows] == ["ok", "skipped"]


def test_a_rate_limited_call_costs_nothing_and_answers_none() -> None:
    llm, chat, ledger = make()
    chat.fail("rate_limited", attempts=4)

    assert llm.complete_text("chat", "s", "u") is None
    row = ledger.rows[0]
    assert (row.status, row.cost_usd, row.attempts) == ("error", 0.0, 4)


def test_a_timed_out_call_keeps_its_reservation_as_its_cost() -> None:
    llm, chat, ledger = make()
    chat.fail("timeout")

    assert llm.complete_text("chat", "s", "u") is None
    row = ledger.rows[0]
    assert row.status == "timeout" and row.cost_usd == row.reserved_usd > 0


def test_an_empty_answer_is_none() -> None:
    llm, chat, _ = make()
    chat.reply("   ")

    assert llm.complete_text("chat", "s", "u") is None


def test_the_disabled_model_answers_none_without_recording_anything() -> None:
    llm = DisabledLlm()

    assert not llm.enabled
    assert llm.complete_json("x", "s", "u", SCHEMA) is None
    assert llm.complete_text("x", "s", "u") is None
