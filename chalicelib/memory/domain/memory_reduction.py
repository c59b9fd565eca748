"""Deterministic reduction of a memory's text: a hint, then an abstract.

Used when no LLM is configured (or it fails). The lead sentence is kept, then the sentences
that carry names, numbers, dates, paths or identifiers, in their original order, within a
length budget; the abstract is the lead sentence, shortened, with the key terms it lacked.
"""

from __future__ import annotations

import re

HINT_CHARS = 320
ABSTRACT_CHARS = 160

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_KEY = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b"  # dates
    r"|\b\d+(?:[.,:]\d+)*%?"  # numbers, versions, times
    r"|(?<![\w.])[A-Z][a-zA-Z0-9]+(?:[A-Z][a-z0-9]+)*\b"  # names
    r"|[\w-]+(?:[./][\w-]+)+"  # paths, modules, hosts
    r"|\b\w+_\w+\b"  # identifiers
)
_STOP_NAMES = frozenset({"The", "A", "An", "This", "That", "It", "We", "I", "In", "On", "If", "When",
                         "And", "But", "Or", "For", "To", "Of", "With", "Use", "Always", "Never"})


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def key_terms(text: str) -> list[str]:
    """Names, numbers, dates, paths and identifiers, first occurrence first, without repeats."""
    seen: dict[str, None] = {}
    for sentence in sentences(text):
        for match in _KEY.finditer(sentence):
            term = match.group(0).strip(".,")
            # A plain capitalised first word is grammar, not a name.
            opening = match.start() == 0 and term.istitle() and term.isalpha()
            if term and term not in _STOP_NAMES and not opening:
                seen.setdefault(term, None)
    return list(seen)


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] or text[: limit - 1]
    return cut + "…"


def hint(text: str, limit: int = HINT_CHARS) -> str:
    """The lead sentence and the sentences holding key facts, in order, within `limit`."""
    parts = sentences(text)
    if not parts:
        return ""
    kept, size = [parts[0]], len(parts[0])
    for sentence in parts[1:]:
        if key_terms(sentence) and size + 1 + len(sentence) <= limit:
            kept.append(sentence)
            size += 1 + len(sentence)
    return _shorten(" ".join(kept), limit)


def abstract(text: str, limit: int = ABSTRACT_CHARS) -> str:
    """One line: the lead sentence, then the key terms it does not already name."""
    parts = sentences(text)
    if not parts:
        return ""
    lead = _shorten(parts[0], max(40, limit * 2 // 3))
    terms: list[str] = []
    for term in (t for t in key_terms(" ".join(parts[1:])) if t not in lead):
        if len(lead) + len(", ".join([*terms, term])) + 3 > limit:
            break
        terms.append(term)
    return f"{lead} [{', '.join(terms)}]" if terms else lead
