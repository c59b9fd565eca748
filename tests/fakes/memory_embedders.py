"""Deterministic embedders for tests: word-hash vectors, fixed vectors, slow and recording wrappers."""

from __future__ import annotations

import hashlib
import math
import re
import threading
import time
from collections.abc import Callable, Sequence

_WORD = re.compile(r"\w+")


def word_vector(text: str, dimension: int = 384) -> list[float]:
    """A unit vector summing one pseudo-random direction per word: shared words, positive cosine."""
    total = [0.0] * dimension
    for word in _WORD.findall(text.lower()) or [text]:
        digest = hashlib.sha256(word.encode()).digest()
        for i in range(dimension):
            total[i] += (digest[i % 32] ^ (i * 131 % 251)) / 255.0 - 0.5
    norm = math.sqrt(sum(v * v for v in total)) or 1.0
    return [v / norm for v in total]


class WordHashEmbedder:
    """Fast and offline; similar wording gives similar vectors, meaning does not."""

    def __init__(self, dimension: int = 384, model: str = "fake-word-hash") -> None:
        self._dimension = dimension
        self._model = model
        self.calls: list[list[str]] = []
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        return self._model

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            self.calls.append(list(texts))
        return [word_vector(t, self._dimension) for t in texts]

    @property
    def seen(self) -> list[str]:
        return [text for call in self.calls for text in call]


class FixedEmbedder(WordHashEmbedder):
    """Returns a chosen vector for chosen texts (the rest as WordHashEmbedder)."""

    def __init__(self, vectors: dict[str, list[float]], dimension: int = 384) -> None:
        super().__init__(dimension)
        self.vectors = vectors

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        base = super().embed(texts)
        return [self.vectors.get(t, v) for t, v in zip(texts, base, strict=True)]


class SlowEmbedder(WordHashEmbedder):
    """Takes `delay_s` per call: for deadline tests."""

    def __init__(self, delay_s: float, dimension: int = 384) -> None:
        super().__init__(dimension)
        self.delay_s = delay_s

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        time.sleep(self.delay_s)
        return super().embed(texts)


class FailingEmbedder(WordHashEmbedder):
    def __init__(self, error: Callable[[], Exception] = lambda: RuntimeError("backend down")) -> None:
        super().__init__()
        self._error = error

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise self._error()


_PIECE = re.compile(r"\w+|[^\w\s]")


class TokenCountingEmbedder(WordHashEmbedder):
    """Counts its own tokens (words and punctuation marks, `max_tokens` of them read), as a local
    model does; records every call."""

    def __init__(self, max_tokens: int, dimension: int = 384) -> None:
        super().__init__(dimension)
        self._max_tokens = max_tokens

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in _PIECE.finditer(text)]
