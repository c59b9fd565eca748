"""Bulk-load memories with COPY: for benchmarks and large test fixtures, never the request path.

Building the HNSW index once after the load is far faster than maintaining it row by row
(100k rows: about a minute against several), so `bulk_load` can drop the index, COPY, build
it again with the definition of migration 0010, and VACUUM ANALYZE the table. Rows bypass
redaction and dedup: the caller provides clean, unique content (the content hash must still be
unique per project); a draft without `created_at` is stamped with the load's time.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from psycopg.types.json import Jsonb

from chalicelib.kernel.database import Database
from chalicelib.memory.adapters.memory_rows import vector
from chalicelib.memory.domain.memory_model import MemoryDraft

HNSW_INDEX = "memories_embedding_hnsw"
HNSW_DDL = (f"CREATE INDEX IF NOT EXISTS {HNSW_INDEX} ON memories USING hnsw (embedding vector_cosine_ops)"
            " WITH (m = 16, ef_construction = 64)")


def bulk_load(db: Database, rows: Iterable[MemoryDraft], *, rebuild_index: bool = True,
              index_memory: str = "512MB") -> int:
    """COPY `rows` into memories; with rebuild_index, drop and rebuild the HNSW index around it."""
    count, now = 0, datetime.now(UTC)
    with db.connection() as conn:
        if rebuild_index:
            conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
        with conn.cursor().copy(
            "COPY memories (project, category, content, metadata, embedding, embedding_model,"
            " content_hash, created_at, last_reinforced_at, tags, session_id) FROM STDIN"
        ) as copy:
            for row in rows:
                created = row.created_at or now
                copy.write_row((row.project, row.category, row.content, Jsonb(row.metadata),
                                vector(row.embedding), row.embedding_model, row.content_hash,
                                created, created, list(row.tags), row.session_id))
                count += 1
    if rebuild_index:
        with db.connection() as conn:
            conn.execute("SELECT set_config('maintenance_work_mem', %s, false)", (index_memory,))
            conn.execute(HNSW_DDL)
            conn.commit()
            # What autovacuum does soon after a load: statistics, and the full-text index's pending
            # list merged (every lookup reads it whole until then).
            conn.autocommit = True
            try:
                conn.execute("VACUUM ANALYZE memories")
            finally:
                conn.autocommit = False
    return count
