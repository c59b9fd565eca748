"""Migrations are recorded, idempotent, and a database built for another dimension is refused."""

from __future__ import annotations

import psycopg
import pytest

from chalicelib.kernel.errors import ConfigurationError
from chalicelib.kernel.migrations import apply_migrations, discover, pending, verify_schema


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
