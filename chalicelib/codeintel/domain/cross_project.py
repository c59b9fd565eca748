"""Lessons and rules confirmed in two or more projects: grouped by what they say, so the weekly
worker can propose each group once into `_global`, with where it came from. Polarity words
("always", "never") are left out of the word bags, so two items are grouped only when they also
negate the same things: "Always use yarn" and "Never use yarn" are never one rule."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from chalicelib.memory.domain.dedup_guard import negated_words, polarity

SIMILARITY = 0.6
MIN_PROJECTS = 2
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    (
        "a",
        "an",
        "the",
        "to",
        "of",
        "in",
        "on",
        "for",
        "and",
        "or",
        "with",
        "before",
        "after",
        "is",
        "are",
        "be",
        "always",
        "never",
        "it",
        "this",
        "that",
        "we",
        "our",
        "use",
        "run",
        "when",
    )
)


@dataclass(frozen=True)
class Learned:
    id: str
    project: str
    category: str
    content: str
    confidence: float


@dataclass(frozen=True)
class Group:
    items: tuple[Learned, ...]

    @property
    def projects(self) -> tuple[str, ...]:
        return tuple(sorted({i.project for i in self.items}))

    @property
    def best(self) -> Learned:
        return max(self.items, key=lambda i: (i.confidence, -len(i.content), i.id))

    @property
    def key(self) -> str:
        """Stable across runs while the group's members stay the same."""
        return hashlib.sha256("|".join(sorted(i.id for i in self.items)).encode()).hexdigest()[:32]

    @property
    def fingerprint(self) -> str:
        body = "|".join(f"{i.id}:{i.content}" for i in sorted(self.items, key=lambda i: i.id))
        return hashlib.sha256(body.encode()).hexdigest()


def words(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1)


def similar(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a and b) and len(a & b) / len(a | b) >= SIMILARITY


def stance(text: str) -> tuple[int, frozenset[str]]:
    """What a text negates: its polarity and the words its negations apply to."""
    return polarity(text), negated_words(text)


def confirmed_groups(items: Sequence[Learned]) -> list[Group]:
    """Groups of similar items of one stance that span at least MIN_PROJECTS projects, in a stable order."""
    ordered = sorted(items, key=lambda i: (-i.confidence, i.id))
    bags = [words(i.content) for i in ordered]
    stances = [stance(i.content) for i in ordered]
    taken: set[int] = set()
    groups: list[Group] = []
    for i in range(len(ordered)):
        if i in taken:
            continue
        chosen = [i] + [j for j in range(i + 1, len(ordered))
                        if j not in taken and stances[i] == stances[j] and similar(bags[i], bags[j])]
        if len({ordered[j].project for j in chosen}) >= MIN_PROJECTS:
            taken.update(chosen)
            groups.append(Group(tuple(ordered[j] for j in chosen)))
    return groups
