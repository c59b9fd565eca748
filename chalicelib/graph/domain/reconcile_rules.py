"""Reconciling a new instruction with an older one without a model: the verdict from wording.

Two instructions are about the same subject when they share most of their topic words (or are
linked to the same entity and share a topic word besides its name). Then:

- opposite polarity (always / never, do / don't, must / must not) with an explicit replacement
  in the new one ("instead of", "no longer", "from now on", "anymore", "going forward",
  "actually") is SUPERSEDES; without one it is a CONTRADICTION (kept and listed, never resolved
  here);
- the same polarity with an explicit replacement is SUPERSEDES ("From now on deploys go out on
  Thursdays" replaces "Deploys go out on Tuesdays"); without one, NO_CONFLICT (a restatement or
  a compatible rule);
- "X instead of Y" ("rather than Y", "X, not Y") supersedes an older rule naming Y on the same
  subject whatever the polarity.

Anything else is NO_CONFLICT: the heuristic leaves a pair alone rather than guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

NO_CONFLICT, SUPERSEDES, CONTRADICTION = "NO_CONFLICT", "SUPERSEDES", "CONTRADICTION"
_NEGATIVE = re.compile(
    r"\b(never|not|don't|dont|do not|doesn't|does not|mustn't|must not|shouldn't|should not|can't|"
    r"cannot|won't|no longer|avoid|stop|forbidden|nobody|no one|without)\b",
    re.I,
)
_REPLACEMENT = re.compile(
    r"\b(instead of|instead|no longer|anymore|any more|from now on|going forward|from today|"
    r"starting (?:today|now|tomorrow|next)|actually|replaces?|switch(?:ed)? to|takes? over|"
    r"taking over|now (?:handles?|owns?|leads?|runs?|manages?|uses?|is|are|goes|go))\b",
    re.I,
)
_INSTEAD_OF = re.compile(r"(?:\binstead of|\brather than|,\s*not)\s+(?:the\s+|a\s+|an\s+)?([\w.-]+)", re.I)
_CONTRAST = re.compile(r"(?:\brather than|,\s*not)\s+(?:the\s+|a\s+|an\s+)?[\w.-]+", re.I)
_STOP_WORDS = (
    "a an the this that these those it its we our us you your i my they them their he she his her "
    "is are was were be been being am do does did don't dont doesn't not no never always must "
    "mustn't should shouldn't shall will would can cannot can't could may might please only ever "
    "from now on off in at to for of by with without and or but if then so as any every all each "
    "instead longer anymore more going forward today actually also just still again new old rule "
    "team everyone nobody one avoid stop make sure let let's before after when while there here "
    "get got go goes into onto up down out over under than run use make keep"
)
_STOP = frozenset(_STOP_WORDS.split())
_WORD = re.compile(r"[a-z0-9][a-z0-9_'.-]*")
MIN_SHARED, MIN_RATIO = 2, 0.5


@dataclass(frozen=True)
class Verdict:
    verdict: str
    reason: str


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def topic_words(text: str) -> set[str]:
    """The words that say what an instruction is about (no polarity, modal or filler words)."""
    words = (w.strip(".'-") for w in _WORD.findall(text.lower()))
    return {_stem(w) for w in words if w and w not in _STOP and len(w) > 1}


def negative(text: str) -> bool:
    """Whether the rule forbids ("use pnpm, not npm" does not: that "not" names what it replaces)."""
    return bool(_NEGATIVE.search(_CONTRAST.sub("", text)))


def same_subject(new: str, old: str, shared_entities: Iterable[str] = ()) -> bool:
    """Most topic words shared, or an entity both are linked to plus one more word."""
    new_words, old_words = topic_words(new), topic_words(old)
    common = new_words & old_words
    smaller = min(len(new_words), len(old_words)) or 1
    entity_words = set().union(*(topic_words(e) for e in shared_entities if e))
    return (len(common) >= MIN_SHARED and len(common) / smaller >= MIN_RATIO) or (
        bool(entity_words) and bool(common - entity_words)
    )


def judge(new: str, old: str, shared_entities: Iterable[str] = ()) -> Verdict:
    """The verdict for the `new` instruction against the `old` one."""
    new_words, old_words = topic_words(new), topic_words(old)
    common = new_words & old_words
    if not same_subject(new, old, shared_entities):
        return Verdict(NO_CONFLICT, "different subjects")
    subject = ", ".join(sorted(common)[:6])
    replaced = _INSTEAD_OF.search(new)
    if replaced and topic_words(replaced.group(1)) & old_words:
        return Verdict(
            SUPERSEDES, f"same subject ({subject}): the new rule is used instead of {replaced.group(1)!r}"
        )
    marker = _REPLACEMENT.search(new)
    if negative(new) != negative(old):
        polarity = "never" if negative(new) else "always"
        if marker:
            return Verdict(
                SUPERSEDES,
                f"same subject ({subject}): {marker.group(0)!r} replaces the "
                f"older rule with its opposite ({polarity})",
            )
        sides = f"old: {'never' if negative(old) else 'always'}, new: {polarity}"
        return Verdict(
            CONTRADICTION, f"same subject ({subject}): opposite rules ({sides}) and no explicit replacement"
        )
    if marker and new_words != old_words:
        return Verdict(SUPERSEDES, f"same subject ({subject}): {marker.group(0)!r} replaces the older rule")
    return Verdict(NO_CONFLICT, f"same subject ({subject}), compatible rules")
