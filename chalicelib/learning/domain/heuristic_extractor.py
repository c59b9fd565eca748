"""The extractor that needs no model: phrasing patterns over the conversation, deterministic.

It reads the conversation line by line ("User:" / "Assistant:" paragraphs, code fences
skipped), splits sentences, and recognises
- rules from imperative phrasing: "always ...", "never ...", "from now on ...",
  "use X, not Y" / "use X instead of Y", "prefer X over Y", "make sure to ...";
- insights: decisions ("we decided", "let's go with"), architecture ("the architecture is"),
  preferences ("I prefer"), learnings ("root cause", "turns out"), bug fixes ("fixed"),
  patterns ("the convention is").
Questions are never rules. A user's rule starts at confidence 0.8, an assistant's at 0.6.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chalicelib.learning.domain.insights import (
    MAX_INSIGHT_CHARS,
    MAX_RULE_CHARS,
    Extraction,
    Insight,
    RuleCandidate,
    unique_insights,
    unique_rules,
)
from chalicelib.learning.domain.rule_wording import as_rule
from chalicelib.learning.domain.significance import SessionSignals, heuristic_significance

_I = re.IGNORECASE
_SPEAKER = re.compile(r"^(User|Assistant):\s*", _I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'`])")
_TOKEN = r"[\w.+#@/-]+"
RULE_PATTERNS = tuple(re.compile(p, _I) for p in (
    r"\bfrom now on\b",
    r"^(?:please\s+|so\s+|and\s+)?(?:always|never)\s+\w+",
    r"\b(?:we|you)\s+(?:should\s+|must\s+)?(?:always|never)\s+\w+",
    rf"\buse\s+{_TOKEN}(?:\s+{_TOKEN})?,?\s+(?:not|instead of|rather than)\s+{_TOKEN}",
    rf"\bprefer\s+{_TOKEN}(?:\s+{_TOKEN})?\s+over\s+{_TOKEN}",
    r"^(?:please\s+)?(?:don't|do not)\s+ever\b",
    r"^(?:please\s+)?make sure (?:to|you|we)\b",
))
# First match wins, most specific kind first.
INSIGHT_PATTERNS = tuple((category, re.compile(p, _I)) for category, p in (
    ("learning", r"\b(?:root cause|turns out|turned out|lesson learned|learned that"
                 r"|the (?:problem|issue) was)\b"),
    ("bugfix", r"\b(?:fixed|the fix (?:is|was)|the bug (?:is|was)|bug fix)\b"),
    ("architecture", r"\b(?:architecture|architectural|the design (?:is|will be))\b"),
    ("decision", r"\b(?:(?:we|I)\s+(?:have\s+)?decided|decided to|let'?s go with"
                 r"|(?:we'll|we will|we're going to) go with|(?:we|I) chose|settled on"
                 r"|the decision (?:is|was))\b"),
    ("preference", r"\bI\s+(?:prefer|'d prefer|would prefer|'d rather|would rather|like it when"
                   r"|don't like)\b"),
    ("pattern", r"\b(?:the (?:convention|pattern) (?:is|here is)|by convention)\b"),
))
KEY_CATEGORIES = frozenset({"decision", "architecture", "preference"})
_FAILURE = re.compile(r"\b(?:error|errors|failed|failing|failure|traceback|exception)\b", _I)
_CRITICAL = re.compile(r"\b(?:pivot|critical|breaking change|rewrite from scratch|data loss"
                       r"|security (?:hole|incident)|outage)\b", _I)


@dataclass(frozen=True)
class _Sentence:
    text: str
    speaker: str
    line: int


def extract(conversation_text: str, files_changed: int = 0, duration_ms: int | None = None) -> Extraction:
    """Rules, insights and significance from phrasing alone."""
    sentences = list(_sentences(conversation_text))
    rules: list[RuleCandidate] = []
    insights: list[Insight] = []
    for s in sentences:
        if s.text.endswith("?"):
            continue
        if any(p.search(s.text) for p in RULE_PATTERNS) and len(s.text) <= MAX_RULE_CHARS:
            rules.append(RuleCandidate(as_rule(s.text), 0.8 if s.speaker == "user" else 0.6, (s.line,)))
        category = next((c for c, p in INSIGHT_PATTERNS if p.search(s.text)), None)
        if category:
            insights.append(Insight(category, s.text[:MAX_INSIGHT_CHARS], (s.line,)))
    kept_rules, kept_insights = unique_rules(rules), unique_insights(insights)
    key = sum(i.category in KEY_CATEGORIES for i in kept_insights) + len(kept_rules)
    signals = SessionSignals(
        files_changed=files_changed,
        failures=sum(bool(_FAILURE.search(s.text)) for s in sentences),
        chars=len(conversation_text), duration_ms=duration_ms, key_insights=key,
        minor_insights=len(kept_insights) - sum(i.category in KEY_CATEGORIES for i in kept_insights),
        critical=any(_CRITICAL.search(s.text) for s in sentences),
    )
    return Extraction(heuristic_significance(signals), tuple(kept_insights), tuple(kept_rules),
                      "heuristic")


def _sentences(text: str) -> list[_Sentence]:
    out: list[_Sentence] = []
    speaker, in_code = "user", False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code or not line:
            continue
        match = _SPEAKER.match(line)
        if match:
            speaker = match.group(1).lower()
            line = line[match.end():]
        line = re.sub(r"^(?:[-*>]|\d+[.)])\s+", "", line)  # list bullets and quotes
        out.extend(_Sentence(part.strip(), speaker, number)
                   for part in _SENTENCE.split(line) if len(part.strip()) >= 12)
    return out
