"""What the two local runtimes of the embedding model share: name, dimension, warm-up and the
checks around an encode, and where the model's tokens fall in a text. A runtime implements
`_encode` and `_offsets` and nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib.memory.services.ports import EmbeddingFailed

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_DIMENSION = 384
TEXT_TOKENS = 254  # the model's 256 word pieces less its [CLS] and [SEP]


class ModelEmbedder:
    """A local model on the CPU: unit-length vectors, failures surfaced as EmbeddingFailed."""

    default_threads = 0  # 0: one per core

    def __init__(self, *, model: str = DEFAULT_MODEL, dimension: int = DEFAULT_DIMENSION,
                 model_dir: str | None = None, threads: int | None = None) -> None:
        self.model = model
        self.dimension = dimension
        self._model_dir = model_dir  # None: the packaged model
        self._threads = self.default_threads if threads is None else threads

    @property
    def max_tokens(self) -> int:
        """Tokens of text the model reads; the rest of a longer text is cut off (`TokenCounter`)."""
        return TEXT_TOKENS

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) characters of each of `text`'s word pieces, none cut off."""
        return [(int(a), int(b)) for a, b in self._offsets(text)]

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

    def _offsets(self, text: str) -> Sequence[tuple[int, int]]:
        """The model tokenizer's character offsets of `text`'s tokens, without its markers."""
        raise NotImplementedError
