"""Numbered SQL migrations: applied by `itachi migrate`/`up` and by the deploy step, never per request.

Files are `chalicelib/migrations/NNNN_name.sql`. `{embedding_dim}` in a file is replaced by the
deployment's embedding dimension (an int, validated), because DDL cannot take parameters.

One migrator at a time (an advisory lock), and none waits forever: the lock is tried until
`lock_wait_s` has passed, then the run fails saying so; once it holds the lock, a statement
waiting on a table lock gives up after `lock_timeout_s` (a migration never queues behind a long
transaction while blocking every request behind itself), and any statement after
`statement_timeout_s` (under the deploy step's own timeout, so the failure reaches CloudFormation).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chalicelib.kernel.database import connect_once
from chalicelib.kernel.errors import ConfigurationError

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
_LOCK_KEY = 7_146_001  # advisory lock: one migrator at a time across processes
LOCK_WAIT_S = 120.0
LOCK_TIMEOUT_S = 30.0
STATEMENT_TIMEOUT_S = 480.0  # the deploy step has 600 s, and must still answer CloudFormation
_LOCK_POLL_S = 0.5


class MigrationLockBusy(RuntimeError):
    """Another migrator held the lock for longer than this one would wait."""


@dataclass(frozen=True)
class Migration:
    version: str
    path: Path

    def sql(self, embedding_dim: int) -> str:
        return self.path.read_text().replace("{embedding_dim}", str(int(embedding_dim)))


def discover(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    return [Migration(p.stem, p) for p in sorted(directory.glob("[0-9][0-9][0-9][0-9]_*.sql"))]


def _take_lock(conn: Any, wait_s: float) -> None:
    deadline = time.monotonic() + wait_s
    while not conn.execute("SELECT pg_try_advisory_lock(%s) AS got", (_LOCK_KEY,)).fetchone()["got"]:
        if time.monotonic() >= deadline:
            raise MigrationLockBusy(f"another migrator has held the migration lock for over {wait_s:g} s; "
                                    f"try again when it has finished")
        time.sleep(_LOCK_POLL_S)


def set_migration_timeouts(conn: Any, lock_timeout_s: float, statement_timeout_s: float) -> None:
    for name, seconds in (("lock_timeout", lock_timeout_s), ("statement_timeout", statement_timeout_s)):
        conn.execute("SELECT set_config(%s, %s, false)", (name, f"{int(seconds * 1000)}ms"))


def apply_migrations(url: str, *, embedding_dim: int, embedding_model: str, lock_wait_s: float = LOCK_WAIT_S,
                     lock_timeout_s: float = LOCK_TIMEOUT_S,
                     statement_timeout_s: float = STATEMENT_TIMEOUT_S) -> list[str]:
    """Apply pending migrations in order; return the versions applied. Idempotent."""
    applied: list[str] = []
    with connect_once(url) as conn:
        set_migration_timeouts(conn, lock_timeout_s, statement_timeout_s)
        _take_lock(conn, lock_wait_s)
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {r["version"] for r in conn.execute("SELECT version FROM schema_migrations")}
            _check_dimension(conn, embedding_dim, embedding_model, fresh=not done)
            for migration in discover():
                if migration.version in done:
                    continue
                with conn.transaction():
                    conn.execute(migration.sql(embedding_dim).encode())
                    conn.execute(
                        "INSERT INTO schema_migrations (version) VALUES (%s)", (migration.version,)
                    )
                applied.append(migration.version)
            _record_dimension(conn, embedding_dim, embedding_model)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))
    return applied


def pending(url: str) -> list[str]:
    with connect_once(url) as conn:
        exists = conn.execute("SELECT to_regclass('schema_migrations') AS t").fetchone()
        done: set[str] = set()
        if exists and exists["t"]:
            done = {r["version"] for r in conn.execute("SELECT version FROM schema_migrations")}
    return [m.version for m in discover() if m.version not in done]


def _check_dimension(conn: object, dim: int, model: str, *, fresh: bool) -> None:
    if fresh:
        return
    stored = read_embedding_settings(conn)
    if stored and stored[0] != dim:
        raise ConfigurationError(
            f"this database was built for {stored[0]}-dimension embeddings ({stored[1]}), "
            f"but the settings ask for {dim} ({model}). Use a new database, or set "
            f"ITACHI_EMBEDDING_PROVIDER / ITACHI_EMBEDDING_DIM to match the database."
        )


def read_embedding_settings(conn: object) -> tuple[int, str] | None:
    """Return (dimension, model) recorded in the schema, or None before the first migration."""
    exists = conn.execute("SELECT to_regclass('itachi_meta') AS t").fetchone()  # type: ignore[attr-defined]
    if not exists or not exists["t"]:
        return None
    rows = {
        r["key"]: r["value"]
        for r in conn.execute(  # type: ignore[attr-defined]
            "SELECT key, value FROM itachi_meta WHERE key IN ('embedding_dim', 'embedding_model')"
        )
    }
    if "embedding_dim" not in rows:
        return None
    return int(rows["embedding_dim"]), rows.get("embedding_model", "?")


def _record_dimension(conn: object, dim: int, model: str) -> None:
    for key, value in (("embedding_dim", str(dim)), ("embedding_model", model)):
        conn.execute(  # type: ignore[attr-defined]
            "INSERT INTO itachi_meta (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO NOTHING",
            (key, value),
        )


def verify_schema(url: str, *, embedding_dim: int, embedding_model: str) -> None:
    """Raise ConfigurationError if the database is unmigrated or built for another dimension."""
    with connect_once(url) as conn:
        stored = read_embedding_settings(conn)
    if stored is None:
        raise ConfigurationError("the database has no Itachi schema yet: run `itachi migrate`")
    if stored[0] != embedding_dim:
        raise ConfigurationError(
            f"this database was built for {stored[0]}-dimension embeddings ({stored[1]}), "
            f"but the settings ask for {embedding_dim} ({embedding_model})"
        )
