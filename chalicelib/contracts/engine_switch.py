"""Engine auto-switch: on a rate limit, hand the task to the next engine in priority order.

The guard against loops has three parts: an engine is never tried twice for one attempt,
the task's switch count (kept by the server, so it survives agent restarts) is capped, and
an agent whose environment has ITACHI_FALLBACK_ACTIVE=1 (it was itself started by a
fallback) never switches. Engines started as a fallback get that variable set.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

FALLBACK_ENV = "ITACHI_FALLBACK_ACTIVE"
MAX_SWITCHES = 2
KNOWN_ENGINES = ("claude", "codex", "gemini")


@dataclass(frozen=True)
class SwitchDecision:
    next_engine: str | None
    reason: str

    @property
    def switch(self) -> bool:
        return self.next_engine is not None


def engine_order(requested: str | None, priority: Sequence[str]) -> tuple[str, ...]:
    """The requested engine first, then the machine's priority list, without repeats."""
    seen: list[str] = []
    for name in [requested, *priority] if requested else list(priority):
        if name and name not in seen:
            seen.append(name)
    return tuple(seen) or ("claude",)


def plan_switch(order: Sequence[str], tried: Iterable[str], switches_so_far: int, *,
                fallback_active: bool, max_switches: int = MAX_SWITCHES) -> SwitchDecision:
    """Decide whether a rate-limited run moves to another engine, and to which."""
    if fallback_active:
        return SwitchDecision(None, f"{FALLBACK_ENV} is set: no further fallback")
    if switches_so_far >= max_switches:
        return SwitchDecision(None, f"switch limit reached ({switches_so_far}/{max_switches})")
    used = set(tried)
    for name in order:
        if name not in used:
            return SwitchDecision(name, "rate limited")
    return SwitchDecision(None, "every engine in the priority list was tried")


def handoff_prompt(original_prompt: str, from_engine: str, notes: str,
                   files_changed: Sequence[str]) -> str:
    """The prompt for the next engine: the task, and what the previous engine already did."""
    changed = ", ".join(files_changed[:50]) or "none yet"
    return (
        f"{original_prompt}\n\n"
        f"## Handoff from {from_engine}\n"
        f"{from_engine} hit a rate limit while working on this task in this same working tree. "
        f"Continue from where it stopped; do not redo finished work.\n"
        f"{notes}\n"
        f"- files changed in the working tree so far: {changed}\n"
    )
