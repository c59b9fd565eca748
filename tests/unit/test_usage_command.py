"""`itachi usage` renders the API's spend report as a short table."""

from __future__ import annotations

from agent.commands.usage_commands import render_usage

REPORT = {
    "llm": {"enabled": True, "model": "gpt-4o-mini"},
    "today": {"spent_usd": 0.0123, "spent_tokens": 4321, "budget_usd": 1.0, "budget_tokens": None},
    "days": [{"day": "2026-11-22", "purpose": "extract_insights", "calls": 3, "skipped": 1, "failed": 0,
              "prompt_tokens": 4000, "completion_tokens": 321, "cost_usd": 0.0123}],
}


def test_the_report_shows_the_model_today_against_the_budget_and_one_row_per_purpose() -> None:
    lines = render_usage(REPORT).splitlines()

    assert lines[0] == "LLM: gpt-4o-mini (enabled)"
    assert lines[1] == "Today: $0.0123 of $1.00, 4,321 tokens"
    assert lines[3].split() == ["2026-11-22", "extract_insights", "3", "1", "0", "4,321", "$0.0123"]


def test_with_the_llm_off_and_no_calls_it_says_so() -> None:
    text = render_usage({"llm": {"enabled": False}, "today": {"budget_usd": 1.0, "budget_tokens": 500},
                         "days": []})

    assert "LLM: off (heuristics only)" in text
    assert "0 tokens of 500" in text
    assert text.endswith("No LLM calls recorded.")
