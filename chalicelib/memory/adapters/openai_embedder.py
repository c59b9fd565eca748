"""Embeddings over the `openai` SDK: OpenAI itself or any OpenAI-compatible server (base URL).

The SDK is imported on first use. Each text is cut to the API's 8,192 tokens an input, and texts
go in requests of at most BATCH_SIZE inputs and 300,000 tokens (`domain/embedding_batches.py`
bounds tokens by UTF-8 bytes, safe for code and CJK). Embedding a text twice is harmless, so the
SDK's own retries apply to everything, timeouts included (429s honour Retry-After). Empty texts
are sent as a single space: the API rejects empty input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib.kernel.openai_client import openai_client
from chalicelib.memory.domain.embedding_batches import batches, fit_input
from chalicelib.memory.services.ports import EmbeddingFailed

BATCH_SIZE = 128  # inputs a request; the API takes up to 2,048
MAX_INPUT_TOKENS = 8192
MAX_REQUEST_TOKENS = 300_000


class OpenAIEmbedder:
    def __init__(self, *, api_key: str, model: str = "text-embedding-3-small", dimension: int = 1536,
                 base_url: str | None = None, timeout_s: float = 10.0, max_retries: int = 2) -> None:
        self.model = model
        self.dimension = dimension
        self._client = openai_client(api_key=api_key, base_url=base_url, timeout_s=timeout_s,
                                     max_retries=max_retries)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        inputs = [fit_input(t, MAX_INPUT_TOKENS) or " " for t in texts]
        vectors: list[list[float]] = []
        for batch in batches(inputs, max_inputs=BATCH_SIZE, max_tokens=MAX_REQUEST_TOKENS):
            vectors.extend(self._batch(batch))
        return vectors

    def _batch(self, inputs: Sequence[str]) -> list[list[float]]:
        import openai

        extra: dict[str, Any] = {}
        if self.model.startswith("text-embedding-3"):
            extra["dimensions"] = self.dimension  # these models can shorten their vectors
        try:
            response = self._client.get().embeddings.create(model=self.model, input=list(inputs), **extra)
        except openai.APIError as exc:
            raise EmbeddingFailed(f"embedding request failed: {type(exc).__name__}") from None
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(inputs):
            raise EmbeddingFailed(f"asked for {len(inputs)} embeddings, got {len(data)}")
        vectors = [list(item.embedding) for item in data]
        if any(len(v) != self.dimension for v in vectors):
            raise EmbeddingFailed(f"the server returned vectors of another dimension than {self.dimension}")
        return vectors
