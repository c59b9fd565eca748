"""Facts a user states about themselves and their preferences, read from one message.

`stated_facts` is the deterministic reader (no model): first-person statements of preference,
habit or identity. The assistant asks the model instead when one is configured, and keeps this
as the fallback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_FACT_CHARS = 240
_CLAUSE = re.compile(r"[^.!?\n;]+")
_PATTERNS: tuple[tuple[str, re.Pattern[str], str], ...] = tuple(
    (kind, re.compile(pattern, re.I), template)
    for kind, pattern, template in (
        ("identity", r"\bmy name is (?P<x>[\w' -]{2,40})", "The user's name is {x}"),
        ("identity", r"\bcall me (?P<x>[\w' -]{2,40})", "The user wants to be called {x}"),
        ("identity", r"\bi(?: am|'m) an? (?P<x>[\w' /+-]{3,80})", "The user is a {x}"),
        ("identity", r"\bi work (?:at|for|on) (?P<x>[\w' ./+-]{2,80})", "The user works {w} {x}"),
        ("preference", r"\bi (?:really |strongly )?(?:prefer|like|love|want) (?P<x>.{3,160})",
         "The user prefers {x}"),
        ("preference", r"\bi (?:hate|dislike|don't like|do not like|can't stand) (?P<x>.{3,160})",
         "The user dislikes {x}"),
        ("preference", r"\b(?:please )?(?:always|from now on) (?P<x>.{3,160})", "The user wants: always {x}"),
        ("preference", r"\b(?:please )?never (?P<x>.{3,160})", "The user wants: never {x}"),
        ("preference", r"\bi (?:usually |always )?use (?P<x>.{3,120})", "The user uses {x}"),
    )
)
FACTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": ["preference", "identity"]},
                    "fact": {"type": "string"},
                },
                "required": ["kind", "fact"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}
_CUES = re.compile(r"\b(i|i'm|my|me|always|never|prefer|call me)\b", re.I)


@dataclass(frozen=True)
class UserFact:
    kind: str  # preference | identity
    text: str


def worth_reading(message: str) -> bool:
    """Whether a message may state something about the user (spares the model the rest)."""
    return bool(_CUES.search(message)) and not message.lstrip().startswith("/")


def stated_facts(message: str) -> list[UserFact]:
    facts: list[UserFact] = []
    for clause in _CLAUSE.findall(message):
        for kind, pattern, template in _PATTERNS:
            match = pattern.search(clause)
            if match:
                value = " ".join(match.group("x").split()).rstrip(",")
                works = clause[match.start() : match.end()].lower().split("work ", 1)[-1].split(" ", 1)[0]
                facts.append(UserFact(kind, template.format(x=value, w=works)[:MAX_FACT_CHARS]))
                break
    return _unique(facts)


def facts_from_answer(answer: dict[str, Any] | None) -> list[UserFact]:
    items = (answer or {}).get("facts")
    if not isinstance(items, list):
        return []
    facts = [
        UserFact(str(i.get("kind")), " ".join(str(i.get("fact") or "").split())[:MAX_FACT_CHARS])
        for i in items
        if isinstance(i, dict)
    ]
    return _unique([f for f in facts if f.text and f.kind in ("preference", "identity")])


def _unique(facts: list[UserFact]) -> list[UserFact]:
    seen: set[str] = set()
    out = []
    for fact in facts:
        if fact.text.lower() not in seen:
            seen.add(fact.text.lower())
            out.append(fact)
    return out[:5]
