"""Embed within a deadline: a late or failed embedding is reported, never waited on.

The embedding runs on a small worker pool so the caller can stop waiting; a late call keeps
running in the background and its result (cached by the embedder) helps the next request.
`embed_chunks` embeds a batch's chunks one after another on one worker, so the caller can
write chunk k while chunk k+1 is being embedded (one encode at a time, as the embedder's thread
setting intends), all of them within one deadline.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass

from chalicelib.kernel.logging import get_logger
from chalicelib.memory.services.ports import Embedder

WORKERS = 4

Vectors = list[list[float]]


@dataclass(frozen=True)
class Embedded:
    vectors: Vectors | None
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
        return _settle(self._pool.submit(self._embedder.embed, list(texts)), timeout_s, len(texts))

    def embed_chunks(self, chunks: Sequence[Sequence[str]], timeout_s: float) -> ChunkedEmbedding:
        """Start embedding `chunks` in order, one after another; `ChunkedEmbedding.get(k)` waits for
        chunk k until `timeout_s` from now has passed."""
        return ChunkedEmbedding(self._pool, self._embedder, chunks, time.monotonic() + timeout_s)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class ChunkedEmbedding:
    """The vectors of a batch's chunks, embedded in order on one worker while the caller writes.

    Once a chunk fails or misses the deadline, it and every later chunk come back without
    vectors (the worker stops after the chunk it is on), so a batch degrades the way a single
    embedding does: what is left is stored without a vector and embedded later.
    """

    def __init__(self, pool: concurrent.futures.Executor, embedder: Embedder, chunks: Sequence[Sequence[str]],
                 deadline: float) -> None:
        self._chunks = [list(c) for c in chunks]
        self._futures: list[Future[Vectors]] = [Future() for _ in chunks]
        self._deadline = deadline
        self._stop = threading.Event()
        self._settled: dict[int, Embedded] = {}
        self._failed: Embedded | None = None
        if self._chunks:
            pool.submit(self._run, embedder)

    def _run(self, embedder: Embedder) -> None:
        for texts, future in zip(self._chunks, self._futures, strict=True):
            if self._stop.is_set():
                future.cancel()
                continue
            try:
                future.set_result(embedder.embed(texts) if texts else [])
            except Exception as exc:  # reported to the caller by `get`; the chunks after it are not embedded
                future.set_exception(exc)
                self._stop.set()

    def stop(self) -> None:
        """Embed no further chunk (the caller gave up on the batch)."""
        self._stop.set()

    def get(self, k: int) -> Embedded:
        """Chunk k's vectors, or None with the reason (this chunk's or an earlier one's)."""
        if k not in self._settled:
            if self._failed is not None:
                self._settled[k] = self._failed
            else:
                wait = max(0.0, self._deadline - time.monotonic())
                self._settled[k] = _settle(self._futures[k], wait, len(self._chunks[k]))
                if self._settled[k].vectors is None:
                    self._failed = self._settled[k]
                    self._stop.set()
        return self._settled[k]


def _settle(future: Future[Vectors], timeout_s: float, count: int) -> Embedded:
    try:
        return Embedded(future.result(timeout=timeout_s))
    except concurrent.futures.TimeoutError:
        get_logger().warning("embedding missed its deadline", extra={"timeout_s": timeout_s, "texts": count})
        return Embedded(None, "embedding_timeout")
    except Exception as exc:  # the backend's failure kinds are many; every one degrades the same way
        get_logger().warning("embedding failed", extra={"error": type(exc).__name__, "texts": count})
        return Embedded(None, "embedding_error")
