"""LLM spend: what a call costs, what it may cost at most, and whether today's budget allows it.

Prices are US dollars per million tokens (input, output). A model missing from the table is
charged at `UNKNOWN_MODEL_PRICE`, deliberately high, so a self-hosted or renamed model can
never make the budget look roomier than it is. The day is the UTC calendar day.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
}
UNKNOWN_MODEL_PRICE = (2.50, 10.00)
CHARS_PER_TOKEN = 4  # the usual rule of thumb for English text


def price_of(model: str) -> tuple[float, float]:
    """(input, output) dollars per million tokens; dated snapshots use their family's price."""
    if model in PRICES_PER_MILLION:
        return PRICES_PER_MILLION[model]
    family = max((name for name in PRICES_PER_MILLION if model.startswith(name + "-")),
                 key=len, default=None)
    return PRICES_PER_MILLION[family] if family else UNKNOWN_MODEL_PRICE


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """Dollars for one call, rounded to a millionth of a dollar."""
    price_in, price_out = price_of(model)
    return round((prompt_tokens * price_in + completion_tokens * price_out) / 1_000_000, 6)


def estimate_prompt_tokens(*texts: str) -> int:
    """Tokens the prompt will use, estimated from its length (plus a little per message)."""
    return sum(math.ceil(len(text) / CHARS_PER_TOKEN) + 4 for text in texts)


@dataclass(frozen=True)
class Spend:
    """What a day has used so far (reservations of calls still running included)."""

    usd: float
    tokens: int


@dataclass(frozen=True)
class DailyBudget:
    """Caps per UTC day. `usd <= 0` allows no call at all; `tokens == 0` means no token cap."""

    usd: float
    tokens: int = 0


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str = ""


def check_budget(budget: DailyBudget, spent: Spend, call_usd: float, call_tokens: int) -> Verdict:
    """Allow a call only if its worst case still fits under every cap of the day."""
    if budget.usd <= 0:
        return Verdict(False, "the daily dollar budget is 0 (ITACHI_LLM_DAILY_BUDGET_USD)")
    if spent.usd + call_usd > budget.usd:
        return Verdict(False, f"daily budget of ${budget.usd:.2f} reached "
                              f"(spent ${spent.usd:.4f}, this call up to ${call_usd:.4f})")
    if budget.tokens > 0 and spent.tokens + call_tokens > budget.tokens:
        return Verdict(False, f"daily budget of {budget.tokens} tokens reached "
                              f"(spent {spent.tokens}, this call up to {call_tokens})")
    return Verdict(True)
