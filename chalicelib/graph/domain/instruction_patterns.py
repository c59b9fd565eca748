"""The eight instruction patterns, told apart by their wording, and a scope guess for each rule.

Scope is how broadly a rule applies: 1.0 universal, 0.5 team or tool wide, 0.2 one entity.
"""

from __future__ import annotations

import re

# (pattern, subtype of the instruction node, wording), most specific first.
PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "correction",
        "rule",
        re.compile(r"\b(actually|instead of|no longer|anymore|from now on .* instead)\b", re.I),
    ),
    (
        "ban",
        "rule",
        re.compile(
            r"\b(never|do not|don't|must not|mustn't|no one|nobody|not allowed|forbidden|"
            r"avoid)\b",
            re.I,
        ),
    ),
    ("exception", "rule", re.compile(r"\b(except|unless|other than|with the exception)\b", re.I)),
    (
        "threshold",
        "rule",
        re.compile(
            r"\b(at least|at most|no more than|under|over|max(?:imum)?|"
            r"min(?:imum)?|limit)\b.*\d|\d+\s*%",
            re.I,
        ),
    ),
    (
        "process",
        "process",
        re.compile(r"\b(first|then|after that|before|steps?|workflow|pipeline|procedure)\b", re.I),
    ),
    (
        "tool_usage",
        "tool_usage",
        re.compile(
            r"\b(use|using)\b.*\b(for|to|when)\b|\b(lives in|is stored in|"
            r"goes in)\b",
            re.I,
        ),
    ),
    (
        "role",
        "instruction",
        re.compile(r"\b(handles?|owns?|is responsible|in charge of|takes? over)\b", re.I),
    ),
    (
        "preference",
        "instruction",
        re.compile(
            r"\b(i prefer|we prefer|prefer|let's make sure|let us make sure|"
            r"make sure)\b",
            re.I,
        ),
    ),
)
_MARKERS = re.compile(
    r"\b(always|never|from now on|must|mustn't|should|shouldn't|make sure|do not|don't|"
    r"please|prefer|no one|nobody|only ever|going forward|not allowed)\b",
    re.I,
)
_IMPERATIVE_WORDS = (
    "use run deploy avoid keep add write put call check prefer ask send review test build ship merge "
    "rebase commit tag store log document name format bill notify ping wait freeze lock open close "
    "remember"
)
IMPERATIVE = frozenset(_IMPERATIVE_WORDS.split())
_TEAM = re.compile(r"\b(team|we|our|us|everyone|all of us|the squad)\b", re.I)
_UNIVERSAL = re.compile(r"\b(always|never|any|every|all projects|everywhere|in general|universally)\b", re.I)


def is_instruction(sentence: str) -> bool:
    """An imperative sentence, or one saying always / never / from now on / must..."""
    words = sentence.strip().split()
    if not words or sentence.rstrip().endswith("?"):
        return False
    first = words[0].lower().strip(",.!")
    return bool(_MARKERS.search(sentence)) or first in IMPERATIVE


def pattern_of(sentence: str) -> tuple[str, str]:
    """(pattern, subtype) of an instruction sentence; 'preference' / 'instruction' by default."""
    for name, subtype, wording in PATTERNS:
        if wording.search(sentence):
            return name, subtype
    return "preference", "instruction"


def scope_of(sentence: str, specific_entities: int) -> float:
    """0.2 when the rule names a specific person or account, 0.5 for a team or tool, 1.0 when it
    is stated for everything (always / never / every) and names nothing specific."""
    if specific_entities and not _TEAM.search(sentence):
        return 0.2
    if _TEAM.search(sentence):
        return 0.5
    if _UNIVERSAL.search(sentence):
        return 1.0
    return 0.5
