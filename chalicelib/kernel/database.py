"""Postgres connection pool: created lazily, one per process (a Lambda container or `itachi up`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from chalicelib.kernel.lazy import Lazy


def _configure(conn: psycopg.Connection[Any]) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)
    conn.commit()


class Database:
    """A lazily opened psycopg pool. `connection()` yields a dict-row connection in a transaction."""

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8) -> None:
        self._url = url
        self._min = min_size
        self._max = max_size
        self._pool: Lazy[ConnectionPool] = Lazy(self._open_pool)

    @property
    def url(self) -> str:
        return self._url

    def _open_pool(self) -> ConnectionPool:
        pool = ConnectionPool(
            self._url,
            min_size=self._min,
            max_size=self._max,
            kwargs={"row_factory": dict_row, "autocommit": False},
            configure=_configure,
            open=False,
        )
        pool.open(wait=True, timeout=15)
        return pool

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        """Yield a pooled connection; commit on success, roll back on error."""
        with self._pool.get().connection() as conn:
            yield conn  # type: ignore[misc]

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
