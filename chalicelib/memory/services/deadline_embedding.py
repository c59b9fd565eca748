"""Embed within a deadline: a late or failed embedding is reported, never waited on.

The embedding runs on a small worker pool so the caller can stop waiting; a late call keeps
running in the background and its result (cached by the embedder) helps the next request.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Sequence
from dataclasses import dataclass

from chalicelib.kernel.logging import get_logger
from chalicelib.memory.services.ports import Embedder

WORKERS = 4


@dataclass(frozen=True)
class Embedded:
    vectors: list[list[float]] | None
    failure: str | None = None  # "embedding_timeout", "embedding_error" or "embedding_loading"


class DeadlineEmbedder:
    def __init__(self, embedder: Embedder, *, workers: int = WORKERS) -> None:
        self._embedder = embedder
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers,
                                                           thread_name_prefix="embed")

    @property
    def embedder(self) -> Embedder:
        return self._embedder

    @property
    def loading(self) -> bool:
        """The embedder says its model is still loading (a local model warmed in the background)."""
        return bool(getattr(self._embedder, "loading", False))

    def embed(self, texts: Sequence[str], timeout_s: float) -> Embedded:
        """Vectors for `texts`, or None with the reason when the deadline passed or the call failed."""
        if not texts:
            return Embedded([])
        future = self._pool.submit(self._embedder.embed, list(texts))
        try:
            return Embedded(future.result(timeout=timeout_s))
        except concurrent.futures.TimeoutError:
            get_logger().warning("embedding missed its deadline", extra={"timeout_s": timeout_s,
                                                                         "texts": len(texts)})
            return Embedded(None, "embedding_timeout")
        except Exception as exc:  # the backend's failure kinds are many; every one degrades the same way
            get_logger().warning("embedding failed", extra={"error": type(exc).__name__, "texts": len(texts)})
            return Embedded(None, "embedding_error")

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
