"""Postgres connection pool: created lazily, one per process (a Lambda container or `itachi up`).

When the database is gone, callers learn it within about a second, never after the pool's
30 s wait: a lost connection raises `Unavailable` (503 with Retry-After at the HTTP edge), and
while the server is known to be down every request fails at once until a probe (one direct
connection attempt, at most every `PROBE_INTERVAL_S`) finds it back; then the pool is rebuilt
so it does not wait out its own reconnection back-off.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from chalicelib.kernel.errors import Unavailable
from chalicelib.kernel.lazy import Lazy
from chalicelib.kernel.logging import get_logger
from chalicelib.kernel.request_transaction import current
from chalicelib.kernel.stored_text import redact_on_write

ACQUIRE_TIMEOUT_S = 10.0  # waiting for a free connection while the server is up (overload)
ACQUIRE_SLICE_S = 0.5  # after this long without a connection, check the server itself
PROBE_INTERVAL_S = 0.5
CONNECT_TIMEOUT_S = 2  # libpq's minimum
_LOST_STATES = ("57P01", "57P02", "57P03")  # admin shutdown, crash shutdown, cannot connect now


def _configure(conn: psycopg.Connection[Any]) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)
    redact_on_write(conn)  # the one redaction step of every write (`kernel.stored_text`)
    conn.commit()


def connection_lost(exc: BaseException, conn: psycopg.Connection[Any] | None = None) -> bool:
    """True when `exc` says the server (or the way to it) is gone, not that a statement failed."""
    if isinstance(exc, PoolTimeout):
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = getattr(exc, "sqlstate", None) or ""
    broken = conn is not None and (conn.broken or conn.closed)
    return broken or state.startswith("08") or state in _LOST_STATES or not state


class Database:
    """A lazily opened psycopg pool. `connection()` yields a dict-row connection in a transaction."""

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8,
                 acquire_timeout_s: float = ACQUIRE_TIMEOUT_S) -> None:
        self._url = url
        self._min = min_size
        self._max = max_size
        self._acquire_timeout = acquire_timeout_s
        self._pool: Lazy[ConnectionPool] = Lazy(self._open_pool)
        self._probe_lock = threading.Lock()
        self._down_since: float | None = None
        self._last_probe = 0.0

    @property
    def url(self) -> str:
        return self._url

    @property
    def down(self) -> bool:
        return self._down_since is not None

    def _open_pool(self) -> ConnectionPool:
        pool = ConnectionPool(
            self._url,
            min_size=self._min,
            max_size=self._max,
            kwargs={"row_factory": dict_row, "autocommit": False, "connect_timeout": CONNECT_TIMEOUT_S},
            configure=_configure,
            open=False,
        )
        pool.open(wait=False)  # connecting happens in the background; `_acquire` bounds the wait
        return pool

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        """Yield a pooled connection; commit on success, roll back on error.

        Inside a request-wide transaction (`chalicelib.kernel.request_transaction`) the block is
        a savepoint of the request's connection instead. Raises Unavailable (never hangs) when
        the database cannot be reached.
        """
        scope = current()
        if scope is None or scope.db is not self:
            with self.direct_connection() as conn:
                yield conn
            return
        try:
            with scope.block() as conn:
                yield conn
        except psycopg.Error as exc:
            if not connection_lost(exc, scope.conn):
                raise
            self._mark_down(exc)
            raise Unavailable("the database is unavailable; retry shortly") from None

    @contextmanager
    def direct_connection(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        """A pooled connection of its own, whatever request transaction is active."""
        pool, conn = self._acquire()
        try:
            with conn:
                yield conn  # type: ignore[misc]
        except psycopg.Error as exc:
            if not connection_lost(exc, conn):
                raise
            self._mark_down(exc)
            raise Unavailable("the database is unavailable; retry shortly") from None
        finally:
            pool.putconn(conn)

    def _acquire(self) -> tuple[ConnectionPool, psycopg.Connection[Any]]:
        deadline = time.monotonic() + self._acquire_timeout
        while True:
            if self.down and not self._probe():
                raise Unavailable("the database is unavailable; retry shortly")
            pool = self._pool.get()
            wait = max(0.05, min(ACQUIRE_SLICE_S, deadline - time.monotonic()))
            try:
                return pool, pool.getconn(timeout=wait)
            except PoolTimeout:
                if time.monotonic() >= deadline:
                    raise Unavailable("the database is busy; retry shortly") from None
                if not self._probe(force=True):
                    raise Unavailable("the database is unavailable; retry shortly") from None

    def _probe(self, *, force: bool = False) -> bool:
        """Is the server reachable? One direct connection attempt, shared by concurrent callers."""
        now = time.monotonic()
        if not force and now - self._last_probe < PROBE_INTERVAL_S:
            return not self.down
        if not self._probe_lock.acquire(blocking=False):
            return not self.down  # another thread is probing: go by what is known
        try:
            self._last_probe = now
            try:
                psycopg.connect(self._url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True).close()
            except psycopg.Error as exc:
                self._mark_down(exc)
                return False
            if self.down:
                self._recovered()
            return True
        finally:
            self._probe_lock.release()

    def _mark_down(self, exc: BaseException) -> None:
        if self._down_since is None:
            self._down_since = time.monotonic()
            get_logger().warning("database unavailable", extra={"error_type": type(exc).__name__,
                                                                "sqlstate": getattr(exc, "sqlstate", None)})

    def _recovered(self) -> None:
        """The server is back: start a fresh pool instead of waiting out the old one's back-off."""
        down_s = time.monotonic() - (self._down_since or time.monotonic())
        old = self._pool.reset()
        self._down_since = None
        if old is not None:
            threading.Thread(target=old.close, kwargs={"timeout": 1.0}, name="pool-close",
                             daemon=True).start()
        get_logger().info("database available again", extra={"down_s": round(down_s, 1)})

    def ping(self) -> None:
        with self.connection() as conn:
            conn.execute("SELECT 1")

    def close(self) -> None:
        pool = self._pool.reset()
        if pool is not None:
            pool.close()


def connect_once(url: str) -> psycopg.Connection[dict[str, Any]]:
    """Open a single autocommit connection (migrations, tooling), without vector registration."""
    return psycopg.connect(url, autocommit=True, row_factory=dict_row)
