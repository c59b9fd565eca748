"""A deterministic TextEmbedder for tests: texts sharing content words point the same way.

The vector of a text is the normalised sum of one fixed pseudo-random direction per content
word (lower-cased, stop words dropped). `same_as` makes a text embed exactly like another,
for tests that need two wordings of one statement to be near-duplicates.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections.abc import Sequence
from functools import cache

_WORD = re.compile(r"[a-z0-9][a-z0-9._+-]*")
_STOP_WORDS = "a an the and or of to in on for with is are be we you it this that not never always"
STOP = frozenset(_STOP_WORDS.split())


@cache
def _direction(word: str, dim: int) -> tuple[float, ...]:
    rng = random.Random(hashlib.sha256(word.encode()).digest())
    return tuple(rng.gauss(0.0, 1.0) for _ in range(dim))


class WordEmbedder:
    def __init__(self, dim: int = 384, model: str = "fake-words") -> None:
        self.dim = dim
        self.model = model
        self.calls = 0
        self._aliases: dict[str, str] = {}

    @property
    def dimension(self) -> int:
        return self.dim

    def same_as(self, text: str, other: str) -> None:
        self._aliases[text] = other

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self._one(self._aliases.get(t, t)) for t in texts]

    def _one(self, text: str) -> list[float]:
        words = [w for w in _WORD.findall(text.lower()) if w not in STOP] or [text.lower() or "empty"]
        summed = [math.fsum(parts) for parts in zip(*(_direction(w, self.dim) for w in words), strict=True)]
        norm = math.sqrt(math.fsum(v * v for v in summed)) or 1.0
        return [v / norm for v in summed]
