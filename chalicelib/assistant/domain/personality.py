"""The user's personality traits as the assistant learns them: about every `EVERY` messages a
batch is read for traits (tone, verbosity, how they like answers), each stored with a confidence
and reinforced when seen again; the top ones go into the bot's system prompt.

`heuristic_traits` reads the batch without a model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

EVERY = 10
TOP = 10
MAX_TRAIT_CHARS = 160
TRAITS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "traits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"trait": {"type": "string"}, "confidence": {"type": "number"}},
                "required": ["trait", "confidence"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["traits"],
    "additionalProperties": False,
}
_POLITE = re.compile(r"\b(please|thanks|thank you|cheers)\b", re.I)
_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf]")
_CODE = re.compile(r"`|\b(def|class|import|npm|git|sql|api|pytest|docker|stack trace|traceback)\b", re.I)


@dataclass(frozen=True)
class Trait:
    text: str
    confidence: float


def heuristic_traits(messages: Sequence[str]) -> list[Trait]:
    texts = [m for m in messages if m.strip()]
    if not texts:
        return []
    n = len(texts)
    words = sum(len(t.split()) for t in texts) / n
    traits = [
        Trait("Writes tersely: prefers short, direct answers", 0.6)
        if words <= 12
        else Trait("Writes in detail: welcomes thorough explanations", 0.55)
    ]
    share = {
        name: sum(1 for t in texts if rx.search(t)) / n
        for name, rx in (("polite", _POLITE), ("emoji", _EMOJI), ("code", _CODE))
    }
    if share["polite"] >= 0.3:
        traits.append(Trait("Polite and appreciative in tone", round(min(0.9, 0.4 + share["polite"] / 2), 2)))
    if share["emoji"] >= 0.3:
        traits.append(
            Trait("Uses emoji: a casual tone is welcome", round(min(0.9, 0.4 + share["emoji"] / 2), 2))
        )
    if share["code"] >= 0.3:
        traits.append(
            Trait("Technical: expects code-level specifics", round(min(0.9, 0.4 + share["code"] / 2), 2))
        )
    questions = sum(1 for t in texts if t.rstrip().endswith("?")) / n
    if questions >= 0.5:
        traits.append(Trait("Asks many questions: answer the question first", round(0.4 + questions / 2, 2)))
    return traits


def traits_from_answer(answer: dict[str, Any] | None) -> list[Trait]:
    items = (answer or {}).get("traits")
    if not isinstance(items, list):
        return []
    out = []
    for item in items[:TOP]:
        if isinstance(item, dict) and str(item.get("trait") or "").strip():
            confidence = item.get("confidence")
            value = float(confidence) if isinstance(confidence, int | float) else 0.5
            out.append(
                Trait(" ".join(str(item["trait"]).split())[:MAX_TRAIT_CHARS], min(0.95, max(0.05, value)))
            )
    return out


def rank(traits: Sequence[tuple[str, float, int]]) -> list[tuple[str, float, int]]:
    """(text, confidence, times reinforced), best first by confidence x reinforcement."""
    return sorted(traits, key=lambda t: (-(t[1] * t[2]), t[0]))[:TOP]
