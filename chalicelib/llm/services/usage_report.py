"""LLM spend by day and purpose, and where today stands against the budget."""

from __future__ import annotations

from typing import Any

from chalicelib.llm.domain.llm_budget import DailyBudget
from chalicelib.llm.services.ports import LlmUnits


def usage_report(units: LlmUnits, budget: DailyBudget, *, model: str, enabled: bool,
                 days: int = 7) -> dict[str, Any]:
    """Return {llm, today, days}: rows per (day, purpose) for the last `days` UTC days, newest first."""
    with units() as uow:
        spent, rows = uow.usage.spent_today(), uow.usage.by_day_and_purpose(days)
    return {
        "llm": {"enabled": enabled, "model": model or None},
        "today": {
            "spent_usd": round(spent.usd, 6),
            "spent_tokens": spent.tokens,
            "budget_usd": budget.usd,
            "budget_tokens": budget.tokens or None,
            "remaining_usd": round(max(0.0, budget.usd - spent.usd), 6),
            "remaining_tokens": max(0, budget.tokens - spent.tokens) if budget.tokens else None,
        },
        "days": rows,
    }
