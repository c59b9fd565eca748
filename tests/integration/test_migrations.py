"""Migrations are recorded, idempotent, and a database built for another dimension is refused."""

from __future__ import annotations

import time

import psycopg
import pytest

from chalicelib.kernel.errors import ConfigurationError
from chalicelib.kernel.migrations import (
    MigrationLockBusy,
    apply_migrations,
    discover,
    pending,
    verify_schema,
)


def test_migrations_are_recorded_and_a_second_run_applies_nothing(database_url: str) -> None:
    assert pending(database_url) == []
    assert apply_migrations(database_url, embedding_dim=384, embedding_model="m") == []
    with psycopg.connect(database_url) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]
        ext = conn.execute("SELECT extname FROM pg_extension WHERE extname = 'vector'").fetchone()
    assert versions == [m.version for m in discover()]
    assert ext is not None


def test_database_built_for_another_dimension_is_a_clear_error(database_url: str) -> None:
    with pytest.raises(ConfigurationError, match="384-dimension"):
        apply_migrations(database_url, embedding_dim=1536, embedding_model="text-embedding-3-small")
    with pytest.raises(ConfigurationError, match="1536"):
        verify_schema(database_url, embedding_dim=1536, embedding_model="text-embedding-3-small")
    verify_schema(database_url, embedding_dim=384, embedding_model="all-MiniLM-L6-v2")


def test_a_migrator_waits_for_the_lock_only_until_its_deadline(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(7146001)")
        started = time.monotonic()
        with pytest.raises(MigrationLockBusy, match="migration lock"):
            apply_migrations(database_url, embedding_dim=384, embedding_model="m", lock_wait_s=1.0)
        assert time.monotonic() - started < 60  # it gave up; it did not wait for the holder
        holder.execute("SELECT pg_advisory_unlock(7146001)")
    assert apply_migrations(database_url, embedding_dim=384, embedding_model="m", lock_wait_s=1.0) == []


def test_a_migration_blocked_by_a_long_transaction_gives_up_at_its_lock_timeout(database_url: str) -> None:
    with psycopg.connect(database_url) as blocker:
        blocker.execute("LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE")  # held until rollback
        with pytest.raises(psycopg.errors.LockNotAvailable):
            apply_migrations(database_url, embedding_dim=384, embedding_model="m", lock_timeout_s=0.5)
        blocker.rollback()
    # The failed run let go of the migration lock: the next one proceeds at once.
    assert apply_migrations(database_url, embedding_dim=384, embedding_model="m", lock_wait_s=1.0) == []


def test_a_migration_statement_running_past_its_timeout_is_cancelled(database_url: str) -> None:
    from chalicelib.kernel.database import connect_once
    from chalicelib.kernel.migrations import set_migration_timeouts

    with connect_once(database_url) as conn:
        set_migration_timeouts(conn, lock_timeout_s=1.0, statement_timeout_s=0.5)
        shown = conn.execute("SHOW statement_timeout").fetchone()
        assert shown is not None and shown["statement_timeout"] == "500ms"
        with pytest.raises(psycopg.errors.QueryCanceled):
            conn.execute("SELECT pg_sleep(5)")
