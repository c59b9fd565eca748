"""Pricing, estimates and the daily budget decision."""

from __future__ import annotations

import pytest

from chalicelib.llm.domain.llm_budget import (
    UNKNOWN_MODEL_PRICE,
    DailyBudget,
    Spend,
    check_budget,
    cost_usd,
    estimate_prompt_tokens,
    price_of,
)


def test_a_known_model_is_charged_its_listed_price_per_million_tokens() -> None:
    assert cost_usd("gpt-4o-mini", 1_000_000, 0) == pytest.approx(0.15)
    assert cost_usd("gpt-4o-mini", 0, 1_000_000) == pytest.approx(0.60)


def test_a_dated_snapshot_is_charged_like_its_family() -> None:
    assert price_of("gpt-4o-mini-2024-07-18") == price_of("gpt-4o-mini")
    assert price_of("gpt-4o-2024-08-06") == price_of("gpt-4o")


def test_an_unknown_model_is_charged_the_high_default_price() -> None:
    assert price_of("llama3.1:8b") == UNKNOWN_MODEL_PRICE


def test_prompt_estimate_grows_with_the_text() -> None:
    assert estimate_prompt_tokens("x" * 400) == 104
    assert estimate_prompt_tokens("a", "b") == 10


def test_a_call_that_fits_under_the_dollar_cap_is_allowed() -> None:
    assert check_budget(DailyBudget(usd=1.0), Spend(0.5, 1000), 0.4, 500).allowed


def test_a_call_whose_worst_case_passes_the_dollar_cap_is_refused_with_a_reason() -> None:
    verdict = check_budget(DailyBudget(usd=1.0), Spend(0.9, 1000), 0.2, 500)

    assert not verdict.allowed
    assert "daily budget of $1.00 reached" in verdict.reason


def test_the_token_cap_applies_when_set() -> None:
    budget = DailyBudget(usd=100.0, tokens=10_000)

    assert check_budget(budget, Spend(0.0, 9_000), 0.0, 1_000).allowed
    refused = check_budget(budget, Spend(0.0, 9_001), 0.0, 1_000)
    assert not refused.allowed and "10000 tokens" in refused.reason


def test_a_zero_dollar_budget_allows_nothing() -> None:
    verdict = check_budget(DailyBudget(usd=0.0), Spend(0.0, 0), 0.0, 1)

    assert not verdict.allowed and "is 0" in verdict.reason
