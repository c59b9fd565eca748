"""Cost caps of a chat user's tasks: what a new task may spend, and what a report adds to the spend.

Two caps, in US dollars: one per task, one per UTC day for all the user's tasks together. Each
is the user's own when set, else the deployment's default; 0 means no cap. A new task may spend
the smaller of its cap and what is left of the day's; with nothing left it is refused. The
agent stops the engine once the task passes what it may spend, and names the cap that bound it.

Spend arrives as running totals per task attempt (the engines report the session's cost so far),
so recording a total adds only its excess over the largest one recorded: a retried or
out-of-order report adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from chalicelib.kernel.errors import Conflict

Cap = Literal["task", "daily"]
CAP_KINDS: tuple[Cap, ...] = ("task", "daily")
MAX_CAP_USD = 10_000.0
# engine_options key the agent reads: {"cap": "task"|"daily", "cap_usd": ..., "user_id": ...}
BUDGET_OPTION = "budget"


class DailyCapSpent(Conflict):
    """A new task of a user whose daily cap is spent."""

    code = "daily_cap_spent"


@dataclass(frozen=True)
class BudgetCaps:
    """Caps in USD; None: not set (the default applies), 0: no cap."""

    task_usd: float | None = None
    daily_usd: float | None = None

    def over(self, defaults: BudgetCaps) -> BudgetCaps:
        """These caps, each unset one taken from `defaults`."""
        return BudgetCaps(defaults.task_usd if self.task_usd is None else self.task_usd,
                          defaults.daily_usd if self.daily_usd is None else self.daily_usd)


@dataclass(frozen=True)
class Allowance:
    """What one new task may spend, and the cap that sets it (None: no cap at all)."""

    usd: float | None
    cap: Cap | None
    cap_usd: float | None

    def engine_option(self, user_id: int) -> dict[str, Any]:
        return {"cap": self.cap, "cap_usd": self.cap_usd, "user_id": user_id}


def allowance(caps: BudgetCaps, spent_today: float) -> Allowance:
    """What a new task may spend under `caps` (defaults applied) with `spent_today` spent already.

    Raises DailyCapSpent when nothing is left of the day's cap.
    """
    task_cap = caps.task_usd or None
    daily_cap = caps.daily_usd or None
    left = None if daily_cap is None else round(daily_cap - spent_today, 4)
    if daily_cap is not None and left is not None and left <= 0:
        raise DailyCapSpent(f"Your daily cap of {usd(daily_cap)} is spent ({usd(spent_today)} today, UTC): "
                            "the task was not created. /budget shows your caps; "
                            "/budget daily <usd> raises it.")
    if left is not None and (task_cap is None or left < task_cap):
        return Allowance(left, "daily", daily_cap)
    return Allowance(task_cap, "task" if task_cap is not None else None, task_cap)


def added_spend(recorded: float, reported: float) -> float:
    """What a reported running total adds to the `recorded` one (never negative)."""
    return max(0.0, reported - recorded)


def reported_total(datas: Iterable[Mapping[str, Any]]) -> float | None:
    """The largest running cost (`cost_usd`) the data of a batch of events reports; None if none does."""
    totals = [float(cost) for data in datas
              if isinstance(cost := data.get("cost_usd"), int | float) and not isinstance(cost, bool)
              and cost >= 0]
    return max(totals) if totals else None


def budget_owner(engine_options: Mapping[str, Any]) -> int | None:
    """The chat user whose daily spend a task's cost counts to (None: nobody's)."""
    option = engine_options.get(BUDGET_OPTION)
    user = option.get("user_id") if isinstance(option, Mapping) else None
    return user if isinstance(user, int) and not isinstance(user, bool) else None


def parse_usd(text: str) -> float:
    """A cap as a user writes it ("2.50", "$20", "0" for none)."""
    try:
        value = float(text.strip().lstrip("$"))
    except ValueError:
        raise ValueError(f"'{text}' is not an amount in dollars") from None
    if not 0 <= value <= MAX_CAP_USD or value != value:
        raise ValueError(f"a cap is between 0 (no cap) and {MAX_CAP_USD:g} dollars")
    return round(value, 2)


def usd(value: float | None) -> str:
    """$2.50; "no cap" for None or 0."""
    return f"${value:,.2f}" if value else "no cap"
