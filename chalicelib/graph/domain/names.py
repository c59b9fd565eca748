"""Entity names: the normalised key an entity is unique by, and the keys a text may mention."""

from __future__ import annotations

import re

_EDGE_PUNCT = "\"'`()[]{}<>,;:!?*"
_LEADING = ("the ", "a ", "an ", "our ", "my ")
MAX_NGRAM = 4
MAX_KEYS = 600


def normalise_name(name: str) -> str:
    """Lower case, single spaces, no surrounding punctuation or leading article."""
    key = " ".join(name.lower().split()).strip(_EDGE_PUNCT + ".")
    for article in _LEADING:
        if key.startswith(article) and len(key) > len(article):
            key = key[len(article) :]
    return key[:200]


def _tokens(text: str) -> list[str]:
    return [t for t in (w.strip(_EDGE_PUNCT).rstrip(".").lower() for w in text.split()) if t]


def candidate_keys(text: str) -> list[str]:
    """Every 1-4 word run of `text`, normalised: the names it could mention (at most MAX_KEYS)."""
    seen: dict[str, None] = {}
    for sentence in re.split(r"[.!?\n]+\s", text):
        words = _tokens(sentence)
        for size in range(1, MAX_NGRAM + 1):
            for start in range(len(words) - size + 1):
                key = normalise_name(" ".join(words[start : start + size]))
                if len(key) >= 2:
                    seen.setdefault(key, None)
                if len(seen) >= MAX_KEYS:
                    return list(seen)
    return list(seen)


def template_key(content: str, names: list[str]) -> str:
    """The content with entity names, numbers and capitalised words blanked: near-identical rules
    written for many entities (bulk templates) share one key."""
    text = re.sub(r"(?<=\w )[A-Z][\w-]*", "<e>", content).lower()
    for name in sorted(names, key=len, reverse=True):
        if name:
            text = text.replace(name, "<e>")
    text = re.sub(r"\d+", "<n>", text)
    return " ".join(text.split())
