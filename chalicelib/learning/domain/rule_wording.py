"""Rule wording: turn a sentence into a rule, and decide which of two wordings is more specific.

Specificity counts the distinct content words of a rule (stop words excluded), and counts
twice the words that pin something down: anything with a digit, a flag (`--no-cache`), a path
or dotted name (`src/app.py`, `yarn.lock`), code in backticks, or a CamelCase identifier.
When a session restates an existing rule, its wording replaces the stored one only if it is
strictly more specific (and still fits `MAX_RULE_CHARS`).
"""

from __future__ import annotations

import re

from chalicelib.learning.domain.insights import MAX_RULE_CHARS

_STOP = """a an the and or but of to in on for with at by from as is are be been was were it its this
that these those we you i our your they them us do does did should must will would can could always
never not no please so just also then than when if"""
STOP_WORDS = frozenset(_STOP.split())
_WORD = re.compile(r"`[^`]+`|[\w.+#@/-]+")
_PRECISE = re.compile(r"\d|^--?\w|/|\w\.\w|^`|[a-z][A-Z]")
_LEAD_IN = re.compile(r"^(?:(?:ok(?:ay)?|so|and|also|please|from now on|going forward|remember)[,:]?\s+)+",
                      re.IGNORECASE)
_WE_ALWAYS = re.compile(r"^(?:we|you)\s+(?:should\s+|must\s+)?(always|never)\b", re.IGNORECASE)


def as_rule(sentence: str) -> str:
    """'From now on, we should always use yarn, not npm.' -> 'Always use yarn, not npm'."""
    text = " ".join(sentence.split())
    text = _LEAD_IN.sub("", text)
    text = _WE_ALWAYS.sub(lambda m: m.group(1), text)
    text = text.rstrip(" .!;")
    return (text[:1].upper() + text[1:])[:MAX_RULE_CHARS]


def specificity(rule: str) -> float:
    words = {w.lower(): w for w in _WORD.findall(rule) if w.lower() not in STOP_WORDS}
    return sum(2.0 if _PRECISE.search(w) else 1.0 for w in words.values())


def more_specific(candidate: str, current: str) -> bool:
    """True when `candidate` should replace `current` as the rule's wording."""
    return len(candidate) <= MAX_RULE_CHARS and specificity(candidate) > specificity(current)
