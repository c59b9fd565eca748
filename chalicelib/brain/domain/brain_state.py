"""The brain's settings and daily tally (one row), and how `/brain config` changes them."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from chalicelib.kernel.errors import InvalidInput

# name -> (field, lowest, highest): what `/brain config <name> <value>` may set.
CONFIGURABLE: dict[str, tuple[str, int, int]] = {
    "interval": ("interval_s", 60, 86400),  # seconds between cycles (given in minutes: 10m, or seconds)
    "budget": ("daily_llm_calls", 0, 10000),  # the brain's LLM calls per UTC day
    "max": ("max_proposals", 0, 10),  # proposals per cycle
}


@dataclass(frozen=True)
class BrainState:
    enabled: bool = True
    interval_s: int = 600
    daily_llm_calls: int = 48
    max_proposals: int = 3
    budget_day: date | None = None
    llm_calls_today: int = 0
    last_cycle_at: datetime | None = None
    last_cycle: dict[str, Any] = field(default_factory=dict)

    def calls_used(self, today: date) -> int:
        return self.llm_calls_today if self.budget_day == today else 0

    def budget_left(self, today: date) -> int:
        return max(0, self.daily_llm_calls - self.calls_used(today))

    def due(self, now: datetime) -> bool:
        """A cycle is due when none ran within the interval (a few seconds of schedule jitter allowed)."""
        if self.last_cycle_at is None:
            return True
        return now - self.last_cycle_at >= timedelta(seconds=self.interval_s - 5)

    def to_json(self, today: date) -> dict[str, Any]:
        return {"enabled": self.enabled, "interval_s": self.interval_s,
                "daily_llm_calls": self.daily_llm_calls, "llm_calls_today": self.calls_used(today),
                "max_proposals": self.max_proposals,
                "last_cycle_at": self.last_cycle_at.isoformat() if self.last_cycle_at else None,
                "last_cycle": self.last_cycle}


def configured(state: BrainState, name: str, raw: str) -> BrainState:
    """The state with `name` set from the user's `raw` value; InvalidInput says what fits."""
    if name not in CONFIGURABLE:
        raise InvalidInput(f"Settings are {', '.join(CONFIGURABLE)}.", field="name")
    attr, low, high = CONFIGURABLE[name]
    text = raw.strip().lower()
    try:
        if name == "interval" and text.endswith("m"):
            value = int(text[:-1]) * 60
        elif name == "interval" and text.endswith("h"):
            value = int(text[:-1]) * 3600
        else:
            value = int(text.rstrip("s")) if name == "interval" else int(text)
    except ValueError:
        raise InvalidInput(f"{name} takes a whole number, got {raw!r}", field="value") from None
    if not low <= value <= high:
        raise InvalidInput(f"{name} must be between {low} and {high}", field="value")
    values: dict[str, Any] = {attr: value}
    return replace(state, **values)
