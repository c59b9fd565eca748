"""A memory's row: the columns every memory read selects, its shape in Python, and the helpers the
memory adapters share (a vector parameter, a savepoint inside the unit's transaction)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from pgvector import Vector

from chalicelib.memory.domain.memory_model import Memory

Conn = psycopg.Connection[Any]
COLUMNS = (
    "m.id, m.project, m.category, m.content, m.summary, m.files, m.metadata, m.significance,"
    " m.confidence, m.times_reinforced, m.last_reinforced_at, coalesce(a.access_count, 0) AS access_count,"
    " a.last_accessed_at,"
    " m.phase, m.superseded_by, m.session_id, m.source_ids, m.created_at, m.updated_at, m.embedding_model,"
    " m.tags, m.source, m.trusted, m.promoted_at, m.promoted_by"
)
# Memories with their access statistics (kept in a narrow table of their own, see 0011).
MEMORIES = "memories m LEFT JOIN memory_access a ON a.memory_id = m.id"
# Not superseded, not ended, not archived.
LIVE = "m.superseded_by IS NULL AND m.valid_until IS NULL AND m.phase < 3"


def to_memory(r: dict[str, Any]) -> Memory:
    return Memory(
        id=str(r["id"]), project=r["project"], category=r["category"], content=r["content"],
        summary=r["summary"], files=tuple(r["files"] or ()), metadata=dict(r["metadata"] or {}),
        significance=round(float(r["significance"]), 4), confidence=round(float(r["confidence"]), 4),
        times_reinforced=int(r["times_reinforced"]), last_reinforced_at=r["last_reinforced_at"],
        access_count=int(r["access_count"]), last_accessed_at=r["last_accessed_at"], phase=int(r["phase"]),
        superseded_by=str(r["superseded_by"]) if r["superseded_by"] else None, session_id=r["session_id"],
        source_ids=tuple(r["source_ids"] or ()), created_at=r["created_at"], updated_at=r["updated_at"],
        embedding_model=r.get("embedding_model"), tags=tuple(r.get("tags") or ()),
        source=r.get("source") or "unspecified", trusted=bool(r.get("trusted", True)),
        promoted_at=r.get("promoted_at"), promoted_by=r.get("promoted_by"),
    )


def vector(values: Sequence[float] | None) -> Vector | None:
    return Vector(list(values)) if values is not None else None


@contextmanager
def savepoint(conn: Conn) -> Iterator[None]:
    """A savepoint inside the unit's transaction (psycopg's own would commit when none is open yet)."""
    conn.execute("SAVEPOINT memory_step")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK TO SAVEPOINT memory_step")
        raise
    conn.execute("RELEASE SAVEPOINT memory_step")
