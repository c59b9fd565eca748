"""Postgres deletes for retention: one statement per kind, oldest rows found through an index.

Each batch picks at most `limit` row ids (`ctid`) of old rows and deletes exactly those, in a
transaction of its own, so a long cleanup never holds locks or a large transaction open.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from chalicelib.ops.domain.retention import KINDS, RetentionRun

if TYPE_CHECKING:
    from chalicelib.kernel.database import Database

# kind -> (table, the condition naming its old rows; %(days)s is bound)
_OLD_ROWS: dict[str, tuple[str, str]] = {
    "task_events": ("task_events", "created_at < now() - make_interval(days => %(days)s)"),
    "session_edits": ("session_edits", "created_at < now() - make_interval(days => %(days)s)"),
    "transcript_chunks": ("memories", "category = 'transcript'"
                                      " AND created_at < now() - make_interval(days => %(days)s)"),
    "llm_usage": ("llm_usage", "day < (now() AT TIME ZONE 'utc')::date - %(days)s"),
}
assert set(_OLD_ROWS) == set(KINDS)


class PostgresRetentionRows:
    def __init__(self, db: Database) -> None:
        self._db = db

    def delete_batch(self, kind: str, older_than_days: int, limit: int) -> int:
        table, old = _OLD_ROWS[kind]
        with self._db.connection() as conn:
            cur = conn.execute(
                f"DELETE FROM {table} WHERE ctid = ANY(ARRAY("
                f"SELECT ctid FROM {table} WHERE {old} LIMIT %(limit)s))",
                {"days": older_than_days, "limit": limit})
            return cur.rowcount

    def record_run(self, run: RetentionRun) -> None:
        with self._db.connection() as conn:
            conn.execute("INSERT INTO retention_runs (started_at, finished_at, removed, complete)"
                         " VALUES (%s, %s, %s, %s)",
                         (run.started_at, run.finished_at, json.dumps(run.removed), run.complete))

    def last_run(self) -> RetentionRun | None:
        with self._db.connection() as conn:
            row = conn.execute("SELECT * FROM retention_runs ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return None
        return RetentionRun(row["started_at"], {str(k): int(v) for k, v in row["removed"].items()},
                            bool(row["complete"]), row["finished_at"])
