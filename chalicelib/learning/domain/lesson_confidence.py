"""How a lesson's (or a rule's) confidence moves. Every result is in [FLOOR, CEILING], 4 decimals.

- A new lesson starts at `INITIAL` (0.7); a rule a user teaches explicitly at `TAUGHT` (0.95).
- A task outcome: success +0.10 (at most 0.99), failure -0.15 (at least 0.05).
- Explicit feedback: good +0.10, bad -0.10, same bounds.
- Effectiveness (weekly), for lessons applied at least `MIN_APPLICATIONS` times: confidence
  moves a quarter of the way toward the lesson's observed success rate,
  `c' = c + 0.25 * (successes / applications - c)`: a lesson that keeps working is boosted, one
  that keeps failing decays, and one that behaves as believed stays put.
"""

from __future__ import annotations

INITIAL = 0.7
TAUGHT = 0.95
SUCCESS_STEP = 0.10
FAILURE_STEP = 0.15
FEEDBACK_STEP = 0.10
CEILING = 0.99
FLOOR = 0.05
MIN_APPLICATIONS = 5
EFFECTIVENESS_PULL = 0.25


def bounded(value: float) -> float:
    return round(min(CEILING, max(FLOOR, value)), 4)


def after_outcome(confidence: float, success: bool) -> float:
    return bounded(confidence + SUCCESS_STEP if success else confidence - FAILURE_STEP)


def after_feedback(confidence: float, good: bool) -> float:
    return bounded(confidence + FEEDBACK_STEP if good else confidence - FEEDBACK_STEP)


def after_effectiveness_review(confidence: float, applications: int, successes: int) -> float:
    """The weekly boost or decay; unchanged below MIN_APPLICATIONS."""
    if applications < MIN_APPLICATIONS:
        return round(confidence, 4)
    rate = min(1.0, max(0.0, successes / applications))
    return bounded(confidence + EFFECTIVENESS_PULL * (rate - confidence))
