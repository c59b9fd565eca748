"""Embeddings over the `openai` SDK: OpenAI itself or any OpenAI-compatible server (base URL).

The SDK is imported on first use. Texts go in batches of BATCH_SIZE. Embedding a text twice
is harmless, so the SDK's own retries apply to everything, timeouts included (429s honour
Retry-After). Empty texts are sent as a single space: the API rejects empty input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib.kernel.openai_client import openai_client
from chalicelib.memory.services.ports import EmbeddingFailed

BATCH_SIZE = 128
MAX_INPUT_CHARS = 24_000  # about 6k tokens, under the 8k-token input limit


class OpenAIEmbedder:
    def __init__(self, *, api_key: str, model: str = "text-embedding-3-small", dimension: int = 1536,
                 base_url: str | None = None, timeout_s: float = 10.0, max_retries: int = 2) -> None:
        self._model = model
        self._dimension = dimension
        self._client = openai_client(api_key=api_key, base_url=base_url, timeout_s=timeout_s,
                                     max_retries=max_retries)

    @property
    def model(self) -> str:
        return self._model

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), BATCH_SIZE):
            vectors.extend(self._batch(texts[start:start + BATCH_SIZE]))
        return vectors

    def _batch(self, texts: Sequence[str]) -> list[list[float]]:
        import openai

        inputs = [(t[:MAX_INPUT_CHARS] or " ") for t in texts]
        extra: dict[str, Any] = {}
        if self._model.startswith("text-embedding-3"):
            extra["dimensions"] = self._dimension  # these models can shorten their vectors
        try:
            response = self._client.get().embeddings.create(model=self._model, input=inputs, **extra)
        except openai.APIError as exc:
            raise EmbeddingFailed(f"embedding request failed: {type(exc).__name__}") from None
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(inputs):
            raise EmbeddingFailed(f"asked for {len(inputs)} embeddings, got {len(data)}")
        vectors = [list(item.embedding) for item in data]
        if any(len(v) != self._dimension for v in vectors):
            raise EmbeddingFailed(f"the server returned vectors of another dimension than {self._dimension}")
        return vectors
