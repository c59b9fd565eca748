"""Real local components for tests: one embedded Postgres and one moto server per test session.

Each test that needs a database gets its own database cloned from a migrated template
(`CREATE DATABASE ... TEMPLATE`, ~0.1 s), and its own queue prefix, so tests never share state.
"""

from __future__ import annotations

import itertools
import os
import uuid
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo

from chalicelib.bootstrap import Container, build
from chalicelib.kernel.migrations import apply_migrations
from chalicelib.kernel.queue_table import QUEUES
from chalicelib.kernel.settings import Settings

TEMPLATE_DB = "itachi_template"
_counter = itertools.count()


class TestPostgres:
    """An embedded server plus a migrated template database."""

    __test__ = False  # a fixture's helper, not a test class

    def __init__(self, root: Path, *, embedding_dim: int = 384) -> None:
        from infra.local.postgres import start_postgres

        self.server, self.admin_url = start_postgres(root)
        self.embedding_dim = embedding_dim
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            # Test data need no durability: skip fsync so setup and shutdown stay fast on a busy disk.
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
            conn.execute("SELECT pg_reload_conf()")
            conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE_DB}")
            conn.execute(f"CREATE DATABASE {TEMPLATE_DB}")
        apply_migrations(self.url_for(TEMPLATE_DB), embedding_dim=embedding_dim,
                         embedding_model="all-MiniLM-L6-v2")

    def url_for(self, dbname: str) -> str:
        return make_conninfo(self.admin_url, dbname=dbname)

    def new_database(self) -> str:
        """Create a fresh migrated database; return its URL."""
        name = f"t_{os.getpid()}_{next(_counter)}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE_DB}")
        return self.url_for(name)

    def close(self) -> None:
        self.server.cleanup()


def settings_for_test(home: Path, database_url: str, sqs_endpoint: str | None,
                  **overrides: Any) -> Settings:
    base = Settings.from_env({"ITACHI_HOME": str(home)})
    return base.replace(
        database_url=database_url,
        sqs_endpoint_url=sqs_endpoint,
        queue_prefix=f"t{uuid.uuid4().hex[:10]}",
        api_keys=("test-key",),
        openai_api_key="",
        telegram_bot_token="",
        **overrides,
    )


def make_container(settings: Settings, *, with_queues: bool = True) -> Container:
    container = build(settings)
    if with_queues and settings.sqs_endpoint_url:
        for spec in QUEUES:
            container.queues.ensure(spec)
    return container
