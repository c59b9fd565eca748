"""What the memory core needs from the outside world, stated narrowly."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Embedder(Protocol):
    """Turns texts into unit vectors of `dimension` floats, one per text, in order.

    Implementations: the local sentence-transformers model, the OpenAI API, and a cache over
    either. `embed` may raise; callers that have a deadline enforce it themselves.
    """

    @property
    def model(self) -> str:
        """The model's name, stored with each vector (vectors of two models never mix)."""
        ...

    @property
    def dimension(self) -> int:
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        ...


class EmbeddingFailed(Exception):
    """The embedding backend failed (network, quota, model); the caller degrades."""
