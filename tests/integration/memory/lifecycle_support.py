"""Helpers of the lifecycle tests: a container with a word embedder and crafted usage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chalicelib.bootstrap import Container
from chalicelib.memory.domain.memory_model import MemoryDraft
from tests.fakes.fake_embedder import WordEmbedder
from tests.integration.memory.conftest import container_with

LONG = ("We moved the session cache from memcached to Redis 7.2 on 2026-03-14 after the outage. "
        "The old node cache01.prod served 4,000 requests per second and fell over under load. "
        "Nobody wanted to keep patching it. It was a long week for everyone involved. "
        "PostgresCache in chalicelib/cache.py was tried first and dropped for its latency. "
        "The team agreed that this should be revisited later in the year if traffic grows.")


def lifecycle_container(tmp_path: Path, database_url: str, **settings: Any) -> Container:
    return container_with(tmp_path, database_url, WordEmbedder(), **settings)


def store(container: Container, project: str, content: str, **fields: Any) -> str:
    draft = MemoryDraft(project=project, category=fields.pop("category", "fact"), content=content, **fields)
    return container.memory.remember(draft, near_dedup=False).id


def start_sessions(container: Container, project: str, count: int, *, prefix: str = "s",
                   failures: int = 0, successes: int = 0) -> list[str]:
    """Sessions of `project` started now (each one later than every memory used so far)."""
    ids = []
    with container.db.connection() as conn:
        for i in range(count):
            sid = f"{prefix}-{project}-{i}"
            conn.execute("INSERT INTO sessions (session_id, project, started_at, tool_failures,"
                         " tool_successes) VALUES (%s, %s, clock_timestamp(), %s, %s)",
                         (sid, project, failures, successes))
            ids.append(sid)
    return ids


def use(container: Container, memory_id: str, times: int) -> None:
    with container.db.connection() as conn:
        conn.execute("INSERT INTO memory_access (memory_id, access_count, last_accessed_at)"
                     " VALUES (%s, %s, clock_timestamp()) ON CONFLICT (memory_id) DO UPDATE"
                     " SET access_count = excluded.access_count,"
                     " last_accessed_at = excluded.last_accessed_at",
                     (memory_id, times))


def phases(container: Container, project: str) -> dict[str, int]:
    with container.db.connection() as conn:
        rows = conn.execute("SELECT content, phase FROM memories WHERE project = %s", (project,)).fetchall()
    return {r["content"]: int(r["phase"]) for r in rows}
