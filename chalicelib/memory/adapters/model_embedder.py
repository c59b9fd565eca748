"""What the two local runtimes of the embedding model share: name, dimension, warm-up and the
checks around an encode. A runtime implements `_encode` and nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib.memory.services.ports import EmbeddingFailed

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_DIMENSION = 384


class ModelEmbedder:
    """A local model on the CPU: unit-length vectors, failures surfaced as EmbeddingFailed."""

    default_threads = 0  # 0: one per core

    def __init__(self, *, model: str = DEFAULT_MODEL, dimension: int = DEFAULT_DIMENSION,
                 model_dir: str | None = None, threads: int | None = None) -> None:
        self.model = model
        self.dimension = dimension
        self._model_dir = model_dir  # None: the packaged model
        self._threads = self.default_threads if threads is None else threads

    def warm_up(self) -> None:
        """Load the model and run one encode, so the first request does not pay for it."""
        self.embed(["warm up"])

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        try:
            vectors = self._encode(list(texts))
        except Exception as exc:  # a runtime's own errors are many; the caller only degrades
            raise EmbeddingFailed(f"local embedding failed: {type(exc).__name__}: {exc}") from exc
        result: list[list[float]] = vectors.tolist()
        if result and len(result[0]) != self.dimension:
            raise EmbeddingFailed(f"model returned {len(result[0])} dimensions, expected {self.dimension}")
        return result

    def _encode(self, texts: list[str]) -> Any:
        """A float array, one unit-length row per text, in input order."""
        raise NotImplementedError
