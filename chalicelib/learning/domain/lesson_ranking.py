"""Which lessons and rules come first.

Lessons: `score = relevance x confidence x recency_decay x reinforcement_bonus`, where
- relevance is the lesson's similarity to the task, in [0, 1] (the memory search score);
- confidence is the lesson's current confidence, in [0.05, 0.99];
- recency_decay(age) = max(0.25, 0.5 ** (age_days / 30)): halves every 30 days since the lesson
  was last reinforced or applied, never below a quarter (an old lesson that still matches well
  is not lost);
- reinforcement_bonus(r, a) = min(1.5, 1 + 0.1 * ln(1 + (r - 1) + a)) for r times reinforced
  (1 = seen once) and a applications: grows with use, slowly, capped at +50 %.

Project rules (MEMORY.md, the learnings API): `priority = confidence x times_reinforced`, as
the seeds specify, ties broken by the most recently reinforced.
"""

from __future__ import annotations

import math

RECENCY_HALF_LIFE_DAYS = 30.0
RECENCY_FLOOR = 0.25
BONUS_SLOPE = 0.1
BONUS_CAP = 1.5


def recency_decay(age_days: float, half_life_days: float = RECENCY_HALF_LIFE_DAYS) -> float:
    return max(RECENCY_FLOOR, 0.5 ** (max(0.0, age_days) / half_life_days))


def reinforcement_bonus(times_reinforced: int, applications: int = 0) -> float:
    uses = max(0, times_reinforced - 1) + max(0, applications)
    return min(BONUS_CAP, 1.0 + BONUS_SLOPE * math.log1p(uses))


def lesson_score(relevance: float, confidence: float, age_days: float, times_reinforced: int = 1,
                 applications: int = 0) -> float:
    relevance = min(1.0, max(0.0, relevance))
    return (relevance * confidence * recency_decay(age_days)
            * reinforcement_bonus(times_reinforced, applications))


def rule_priority(confidence: float, times_reinforced: int) -> float:
    return confidence * max(1, times_reinforced)
