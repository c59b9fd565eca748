"""The database side of `bench/scale.py`: synthetic vectors, the buffer cache, the table's size."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memory_api import ItachiServer


def synthetic_vectors(count: int, sigma: float = 0.25, seed: int = 7) -> Iterator[Any]:
    """Unit vectors around clustered centres (a cached real embedding set when there is one)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    folder = Path(os.environ.get("ITACHI_TEST_CACHE") or Path.home() / ".cache" / "itachi")
    cached = sorted(folder.glob("scale-*.npy"), key=lambda f: f.stat().st_size)
    centres = np.load(cached[-1]) if cached else rng.standard_normal((2000, 384)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    print(f"synthetic vectors around {len(centres)} centres ({'cached embeddings' if cached else 'random'})")
    for start in range(0, count, 10_000):
        size = min(10_000, count - start)
        picks = centres[rng.integers(0, len(centres), size)]
        noisy = picks + sigma * rng.standard_normal(picks.shape).astype(np.float32) / np.sqrt(384)
        yield from noisy / np.linalg.norm(noisy, axis=1, keepdims=True)


def set_shared_buffers(server: ItachiServer, size: str) -> None:
    """Give the embedded Postgres more buffer cache (takes effect when `itachi up` restarts)."""
    import psycopg

    from infra.local.postgres import start_postgres

    handle, url = start_postgres(server.home)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            statement = psycopg.sql.SQL("ALTER SYSTEM SET shared_buffers = {}")
            conn.execute(statement.format(psycopg.sql.Literal(size)))
    finally:
        handle.cleanup()  # detach: the server stays up while `itachi up` holds it


def table_size(server: ItachiServer) -> str:
    import psycopg

    from infra.local.postgres import start_postgres

    handle, url = start_postgres(server.home)
    try:
        with psycopg.connect(url) as conn:
            row = conn.execute("SELECT pg_size_pretty(pg_total_relation_size('memories')),"
                               " pg_size_pretty(pg_relation_size('memories')),"
                               " pg_size_pretty(pg_relation_size('memories_embedding_hnsw'))").fetchone()
    finally:
        handle.cleanup()
    assert row is not None
    return f"{row[0]} (heap {row[1]}, HNSW {row[2]})"


def memory_count(server: ItachiServer) -> int:
    """How many memories the server's database holds."""
    import psycopg

    from infra.local.postgres import start_postgres

    handle, url = start_postgres(server.home)
    try:
        with psycopg.connect(url) as conn:
            row = conn.execute("SELECT count(*) FROM memories").fetchone()
    finally:
        handle.cleanup()
    return int(row[0]) if row else 0
