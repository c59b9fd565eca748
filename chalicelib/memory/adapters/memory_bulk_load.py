"""Bulk-load memories with COPY: for benchmarks and large test fixtures, never the request path.

Building the HNSW index once after the load is far faster than maintaining it row by row
(100k rows: about a minute against several), so `bulk_load` can drop the index, COPY, and
build it again with the definition of migration 0010. Rows bypass redaction and dedup: the
caller provides clean, unique content (the content hash must still be unique per project).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from psycopg.types.json import Jsonb

from chalicelib.kernel.database import Database
from chalicelib.memory.adapters.memory_repository import vector
from chalicelib.memory.domain.memory_hygiene import content_hash

HNSW_INDEX = "memories_embedding_hnsw"
HNSW_DDL = (f"CREATE INDEX IF NOT EXISTS {HNSW_INDEX} ON memories USING hnsw (embedding vector_cosine_ops)"
            " WITH (m = 16, ef_construction = 64)")


@dataclass(frozen=True)
class BulkMemory:
    project: str
    category: str
    content: str
    embedding: Sequence[float]
    embedding_model: str
    created_at: datetime
    metadata: dict[str, object] | None = None


def bulk_load(db: Database, rows: Iterable[BulkMemory], *, rebuild_index: bool = True) -> int:
    """COPY `rows` into memories; with rebuild_index, drop and rebuild the HNSW index around it."""
    count = 0
    with db.connection() as conn:
        if rebuild_index:
            conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
        with conn.cursor().copy(
            "COPY memories (project, category, content, metadata, embedding, embedding_model,"
            " content_hash, created_at, last_reinforced_at) FROM STDIN"
        ) as copy:
            for row in rows:
                copy.write_row((row.project, row.category, row.content, Jsonb(row.metadata or {}),
                                vector(row.embedding), row.embedding_model,
                                content_hash(row.category, row.content), row.created_at, row.created_at))
                count += 1
    if rebuild_index:
        with db.connection() as conn:
            conn.execute("SET maintenance_work_mem = '512MB'")
            conn.execute(HNSW_DDL)
            conn.execute("ANALYZE memories")
    return count
