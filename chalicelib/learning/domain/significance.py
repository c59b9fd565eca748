"""Heuristic significance of a session, on the same scale as the LLM's (see `insights`).

The session first lands in a tier by what it produced, then earns up to +0.2 inside the tier
from its volume (how many files, how many failures it went through, how long it was):

| tier     | when                                                       | range     |
|----------|------------------------------------------------------------|-----------|
| trivial  | no edits and nothing learned (greetings, questions)        | 0.1 - 0.2 |
| minor    | edits, bug fixes, learnings or patterns                    | 0.3 - 0.5 |
| decision | a decision, an architectural choice, a preference or rule  | 0.6 - 0.8 |
| critical | a decision that reads as a pivot or a critical change      | 0.9 - 1.0 |

Inside a tier: +0.04 per key insight after the first (at most 2), +0.02 per changed file (at
most 5), +0.02 per failure seen (at most 3), +0.02 for a long session (4000+ characters or
20+ minutes); the sum is capped at +0.2 (+0.1 for trivial sessions).
"""

from __future__ import annotations

from dataclasses import dataclass

TIER_BASE = {"trivial": 0.1, "minor": 0.3, "decision": 0.6, "critical": 0.9}
TIER_ROOM = {"trivial": 0.1, "minor": 0.2, "decision": 0.2, "critical": 0.1}
LONG_SESSION_CHARS = 4000
LONG_SESSION_MS = 20 * 60 * 1000


@dataclass(frozen=True)
class SessionSignals:
    files_changed: int = 0
    failures: int = 0
    chars: int = 0
    duration_ms: int | None = None
    key_insights: int = 0  # decisions, architecture, preferences, rules
    minor_insights: int = 0  # bug fixes, learnings, patterns
    critical: bool = False  # pivot / critical wording next to a key insight


def tier_of(s: SessionSignals) -> str:
    if s.key_insights and s.critical:
        return "critical"
    if s.key_insights:
        return "decision"
    if s.minor_insights or s.files_changed:
        return "minor"
    return "trivial"


def heuristic_significance(s: SessionSignals) -> float:
    """A score in [0, 1], rounded to two decimals."""
    tier = tier_of(s)
    long_session = s.chars >= LONG_SESSION_CHARS or (s.duration_ms or 0) >= LONG_SESSION_MS
    bonus = (0.04 * min(max(s.key_insights - 1, 0), 2) + 0.02 * min(s.files_changed, 5)
             + 0.02 * min(s.failures, 3) + (0.02 if long_session else 0.0))
    return round(min(1.0, TIER_BASE[tier] + min(bonus, TIER_ROOM[tier])), 2)
