"""An embedder that remembers: the `embedding_cache` table plus a small in-process LRU.

The key is SHA-256 of (model, text), so the table holds vectors only, never text. A text
asked for twice at the same moment (two requests with the same query) is
embedded once: the second caller waits for the first. Cache writes do not wait for the disk
(`synchronous_commit = off`): losing one costs a recomputation, nothing more.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future

from pgvector import Vector

from chalicelib.kernel.database import Database
from chalicelib.kernel.logging import get_logger
from chalicelib.memory.services.ports import Embedder

LRU_SIZE = 2048


def cache_key(model: str, text: str) -> bytes:
    return hashlib.sha256(f"{model}\0{text}".encode()).digest()


class CachedEmbedder:
    def __init__(self, inner: Embedder, db: Database, *, lru_size: int = LRU_SIZE) -> None:
        self.inner = inner  # the embedder whose vectors are cached
        self._db = db
        self._lru: OrderedDict[bytes, list[float]] = OrderedDict()
        self._lru_size = lru_size
        self._pending: dict[bytes, Future[list[float]]] = {}
        self._lock = threading.Lock()
        self._loading = threading.Event()

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def loading(self) -> bool:
        """True while `warm_up_in_background` is loading the model: searches then answer from full
        text at once instead of waiting for it."""
        return self._loading.is_set()

    def warm_up_in_background(self) -> threading.Thread:
        """Load a local model on a thread of its own (a network embedder needs no warming)."""
        warm = getattr(self.inner, "warm_up", None)
        if callable(warm):
            self._loading.set()

        def load() -> None:
            try:
                if callable(warm):
                    warm()
            except Exception as exc:  # the first embedding will report it; searches degrade meanwhile
                get_logger().warning("embedding model failed to load", extra={"error": type(exc).__name__})
            finally:
                self._loading.clear()

        thread = threading.Thread(target=load, name="embedder-warm-up", daemon=True)
        thread.start()
        return thread

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [cache_key(self.model, t) for t in texts]
        found: dict[bytes, list[float]] = {}
        waits: dict[bytes, Future[list[float]]] = {}
        mine: dict[bytes, Future[list[float]]] = {}
        with self._lock:
            for key in keys:
                if key in self._lru:
                    self._lru.move_to_end(key)
                    found[key] = self._lru[key]
                elif key in self._pending:
                    waits[key] = self._pending[key]
                elif key not in mine:
                    mine[key] = self._pending[key] = Future()
        try:
            if mine:
                found.update(self._load_or_compute(keys, texts, set(mine)))
        except BaseException as exc:
            self._settle(mine, {}, exc)
            raise
        self._settle(mine, found, None)
        for key, future in waits.items():
            found[key] = future.result()
        return [found[key] for key in keys]

    def _load_or_compute(self, keys: list[bytes], texts: Sequence[str],
                         wanted: set[bytes]) -> dict[bytes, list[float]]:
        stored = self._read(list(wanted))
        missing = {k: t for k, t in zip(keys, texts, strict=True) if k in wanted and k not in stored}
        if missing:
            vectors = self.inner.embed(list(missing.values()))
            computed = dict(zip(missing, vectors, strict=True))
            self._write(computed)
            stored.update(computed)
        return stored

    def _settle(self, mine: dict[bytes, Future[list[float]]], found: dict[bytes, list[float]],
                error: BaseException | None) -> None:
        with self._lock:
            for key, future in mine.items():
                self._pending.pop(key, None)
                if error is None:
                    self._lru[key] = found[key]
                    future.set_result(found[key])
                else:
                    future.set_exception(error)
            while len(self._lru) > self._lru_size:
                self._lru.popitem(last=False)

    def _read(self, keys: list[bytes]) -> dict[bytes, list[float]]:
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT key, embedding FROM embedding_cache WHERE key = ANY(%s) AND model = %s",
                (keys, self.model),
            ).fetchall()
        return {bytes(r["key"]): [float(x) for x in _floats(r["embedding"])] for r in rows}

    def _write(self, computed: dict[bytes, list[float]]) -> None:
        with self._db.connection() as conn:
            conn.execute("SET LOCAL synchronous_commit = off")
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO embedding_cache (key, model, embedding) VALUES (%s, %s, %s)"
                    " ON CONFLICT (key) DO NOTHING",
                    [(key, self.model, Vector(vector)) for key, vector in computed.items()],
                )


def _floats(value: object) -> list[float]:
    """pgvector's loader gives a Vector (or a numpy array, depending on the version)."""
    to_list = getattr(value, "to_list", None) or getattr(value, "tolist", None)
    return list(to_list()) if callable(to_list) else list(value)  # type: ignore[call-overload]
