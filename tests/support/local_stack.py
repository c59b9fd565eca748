"""Real local components for tests: one embedded Postgres and one moto server per test session.

Each test that needs a database gets its own database cloned from a migrated template
(`CREATE DATABASE ... TEMPLATE`, ~0.05-0.3 s), and its own queue prefix, so tests never share state.
A background thread keeps a few clones ready ahead of the tests and drops each one a test hands
back, so a test waits for neither and the data directory stays small.
"""

from __future__ import annotations

import functools
import itertools
import os
import threading
import uuid
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from chalicelib.bootstrap import Container, build
from chalicelib.kernel.migrations import apply_migrations
from chalicelib.kernel.queue_table import QUEUES
from chalicelib.kernel.queues import SqsQueues
from chalicelib.kernel.settings import Settings

TEMPLATE_DB = "itachi_template"
READY_AHEAD = 4  # clones kept ready: a few fast tests in a row on a busy box still find one
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
        self._pool = ClonePool(self.admin_url)

    def url_for(self, dbname: str) -> str:
        return make_conninfo(self.admin_url, dbname=dbname)

    def new_database(self) -> str:
        """A fresh migrated database (cloned ahead of time when the pool keeps up); its URL."""
        return self.url_for(self._pool.take())

    def drop_database(self, url: str) -> None:
        """Drop a database `new_database` gave, in the background; connections left open are ended."""
        self._pool.discard(str(conninfo_to_dict(url)["dbname"]))

    def close(self) -> None:
        self._pool.close()
        self.server.cleanup()


class ClonePool:
    """One thread cloning the template ahead of demand and dropping the clones handed back.

    FILE_COPY copies the template's files in one go: about twice as fast as the default WAL_LOG
    (which writes every page to the WAL) and it writes no WAL; its checkpoints cost little with
    fsync off.
    """

    def __init__(self, admin_url: str, ahead: int = READY_AHEAD) -> None:
        self._admin_url = admin_url
        self._ahead = ahead
        self._ready: deque[str] = deque()
        self._doomed: deque[str] = deque()
        self._wanted = 0  # takers waiting for a clone
        self._failure: BaseException | None = None
        self._closed = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._work, name="clone-pool", daemon=True)
        self._thread.start()

    def take(self) -> str:
        """The name of a fresh clone, waiting for the thread if none is ready."""
        with self._changed:
            self._wanted += 1
            self._changed.notify_all()
            try:
                while not self._ready:
                    if self._failure is not None:
                        raise RuntimeError("the clone pool stopped") from self._failure
                    self._changed.wait()
                return self._ready.popleft()
            finally:
                self._wanted -= 1
                self._changed.notify_all()

    def discard(self, name: str) -> None:
        with self._changed:
            self._doomed.append(name)
            self._changed.notify_all()

    def close(self) -> None:
        """Stop the thread; clones still ready or waiting to be dropped go with the data directory."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        self._thread.join(timeout=60)

    def _next_job(self) -> tuple[str, str] | None:
        with self._changed:
            while not self._closed:
                # A waiting test first, then the drops, then the clones ahead.
                if self._doomed and self._wanted <= len(self._ready):
                    return "drop", self._doomed.popleft()
                if len(self._ready) < max(self._ahead, self._wanted):
                    return "create", f"t_{os.getpid()}_{next(_counter)}"
                self._changed.wait()
            return None

    def _work(self) -> None:
        try:
            with psycopg.connect(self._admin_url, autocommit=True) as conn:
                while (job := self._next_job()) is not None:
                    action, name = job
                    if action == "drop":
                        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
                        continue
                    conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE_DB} STRATEGY FILE_COPY")
                    with self._changed:
                        self._ready.append(name)
                        self._changed.notify_all()
        except BaseException as exc:
            with self._changed:
                self._failure = exc
                self._changed.notify_all()
            raise


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
        ensure_queues(settings)
    return container


def ensure_queues(settings: Settings) -> None:
    """Create the settings' queues (each with its DLQ), as the stack does before the app runs.

    Through one client per test process, all queues at once: a client of its own would load
    botocore's models again (0.2-0.3 s a test), and the app finds the queues by name when it
    first uses them, as in production.
    """
    queues = SqsQueues(prefix=settings.queue_prefix, region=settings.aws_region,
                       endpoint_url=settings.sqs_endpoint_url, session=_boto_session())
    queues.client  # noqa: B018 (built here: a session is not thread-safe, its clients are)
    with ThreadPoolExecutor(max_workers=len(QUEUES)) as pool:
        list(pool.map(queues.ensure, QUEUES))


@functools.cache
def _boto_session() -> Any:
    import boto3

    return boto3.session.Session()
