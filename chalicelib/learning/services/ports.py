"""What the learning loop needs from the rest of the system, stated narrowly.

The memory core provides both: its embedder (`TextEmbedder`) and its secret redaction
(`Redact`). Tests use deterministic fakes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

Redact = Callable[[str], str]


class TextEmbedder(Protocol):
    @property
    def model(self) -> str:
        """The embedding model's name, stored with each vector."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text, in order."""
        ...
