"""What a session teaches: insights, project rules, a significance score, and the lessons they promote.

Significance is on the scale every extractor uses:
0.0-0.2 trivial changes, greetings; 0.3-0.5 bug fixes, minor features; 0.6-0.8 technical
decisions, architectural choices; 0.9-1.0 critical decisions, project pivots.

Insights of significant sessions (>= `RLM_SIGNIFICANCE_THRESHOLD`) in the categories of
`RLM_CATEGORY_MAP` become lessons (`task_lesson` memories) of the mapped kind. Patterns,
architecture records and bug fixes stay searchable memories only: they are project facts,
not reusable guidance.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

CATEGORIES = ("decision", "pattern", "bugfix", "architecture", "preference", "learning")
RLM_CATEGORY_MAP = {
    "preference": "user-preference",
    "learning": "error-handling",
    "decision": "project-selection",
}
RLM_SIGNIFICANCE_THRESHOLD = 0.7
MAX_INSIGHTS = 8
MAX_RULES = 5
MAX_INSIGHT_CHARS = 500
MAX_RULE_CHARS = 200
DEFAULT_RULE_CONFIDENCE = 0.8
HYPOTHESIS = "hypothesis"  # the memory category of what a failed attempt found


@dataclass(frozen=True)
class Insight:
    category: str
    content: str
    lines: tuple[int, ...] = ()  # 1-based lines of the conversation text it came from


@dataclass(frozen=True)
class RuleCandidate:
    rule: str
    confidence: float = DEFAULT_RULE_CONFIDENCE
    lines: tuple[int, ...] = ()


@dataclass(frozen=True)
class Extraction:
    significance: float
    insights: tuple[Insight, ...]
    rules: tuple[RuleCandidate, ...]
    extractor: str  # "llm" | "heuristic"


def lessons_to_promote(extraction: Extraction) -> list[tuple[Insight, str]]:
    """(insight, lesson kind) for every insight the RLM bridge promotes."""
    if extraction.significance < RLM_SIGNIFICANCE_THRESHOLD:
        return []
    return [(i, RLM_CATEGORY_MAP[i.category]) for i in extraction.insights if i.category in RLM_CATEGORY_MAP]


def hypotheses(insights: Iterable[Insight],
               rules: Iterable[RuleCandidate]) -> tuple[list[Insight], dict[str, str]]:
    """Every insight and rule of a failed attempt as a hypothesis, and what each claimed to be
    (its insight category, or `rule`), by text."""
    found = [(r.rule, "rule", r.lines) for r in rules] + [(i.content, i.category, i.lines) for i in insights]
    kinds = {text: kind for text, kind, _ in found}
    lines = {text: at for text, _, at in found}
    return [Insight(HYPOTHESIS, text, lines[text]) for text in kinds], kinds


def clamp(value: float, low: float = 0.0, high: float = 1.0) -> float:
    return min(high, max(low, value))


def extraction_from_answer(answer: dict[str, Any], line_count: int) -> Extraction | None:
    """Read a model's answer defensively; None when it lacks a usable significance."""
    significance = answer.get("significance")
    if isinstance(significance, bool) or not isinstance(significance, int | float) \
            or not math.isfinite(significance):
        return None
    insights: list[Insight] = []
    for item in _dicts(answer.get("insights")):
        category = str(item.get("category", "")).strip().lower()
        content = _text(item.get("content"), MAX_INSIGHT_CHARS)
        if category in CATEGORIES and content:
            insights.append(Insight(category, content, _lines(item.get("lines"), line_count)))
    rules: list[RuleCandidate] = []
    for item in _dicts(answer.get("rules")):
        rule = _text(item.get("rule"), MAX_RULE_CHARS)
        confidence = item.get("confidence")
        if not isinstance(confidence, int | float) or isinstance(confidence, bool):
            confidence = DEFAULT_RULE_CONFIDENCE
        if rule:
            rules.append(RuleCandidate(rule, round(clamp(float(confidence), 0.05, 0.99), 4),
                                       _lines(item.get("lines"), line_count)))
    return Extraction(round(clamp(float(significance)), 4), tuple(unique_insights(insights)),
                      tuple(unique_rules(rules)), "llm")


def unique_insights(insights: Iterable[Insight]) -> list[Insight]:
    seen: set[str] = set()
    kept = []
    for insight in insights:
        key = insight.content.casefold()
        if key not in seen:
            seen.add(key)
            kept.append(insight)
    return kept[:MAX_INSIGHTS]


def unique_rules(rules: Iterable[RuleCandidate]) -> list[RuleCandidate]:
    seen: set[str] = set()
    kept = []
    for rule in rules:
        key = rule.rule.casefold().rstrip(".!")
        if key not in seen:
            seen.add(key)
            kept.append(rule)
    return kept[:MAX_RULES]


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _text(value: Any, limit: int) -> str:
    return " ".join(value.split())[:limit] if isinstance(value, str) else ""


def _lines(value: Any, line_count: int) -> tuple[int, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(sorted({v for v in value if isinstance(v, int) and not isinstance(v, bool)
                         and 1 <= v <= line_count}))[:20]
