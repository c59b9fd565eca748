"""Postgres side of the review queue: quarantined memories waiting for a person, kept or dropped.

A memory waits while it is untrusted, live (not superseded, not archived) and nobody reviewed
it (`metadata.reviewed_by`). Keeping it trusts it with the reviewer recorded; dropping it moves
it to the archive phase (the original into `memory_archive` first, as eviction does), so it
leaves search but stays readable by id and restorable.
"""

from __future__ import annotations

from collections.abc import Sequence

from chalicelib.memory.adapters.memory_rows import COLUMNS, MEMORIES, Conn, to_memory
from chalicelib.memory.domain.memory_lifecycle import ARCHIVED
from chalicelib.memory.domain.memory_model import Memory

WAITING = "NOT m.trusted AND m.superseded_by IS NULL AND m.phase < 3 AND NOT m.metadata ? 'reviewed_by'"
_REVIEWED = ("metadata = metadata || jsonb_build_object('reviewed_by', %(by)s::text, 'reviewed_at', now(),"
             " 'review', %(verdict)s::text)")
_STILL_WAITING = ("id = %(id)s AND NOT trusted AND superseded_by IS NULL AND phase < 3"
                  " AND NOT metadata ? 'reviewed_by'")


class PostgresReviewRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def waiting(self, project: str | None, limit: int, *, unannounced: bool = False) -> list[Memory]:
        """Memories waiting for review, oldest first; `unannounced`: those not yet sent to the chat,
        locked (skipping rows another digest holds) until the caller's transaction ends."""
        lock = " FOR UPDATE OF m SKIP LOCKED" if unannounced else ""
        rows = self._conn.execute(
            f"SELECT {COLUMNS} FROM {MEMORIES} WHERE {WAITING}"
            " AND (%(p)s::text IS NULL OR m.project = %(p)s)"
            " AND (NOT %(u)s OR NOT m.metadata ? 'review_announced_at')"
            f" ORDER BY m.created_at, m.id LIMIT %(n)s{lock}",
            {"p": project, "u": unannounced, "n": limit}, prepare=False).fetchall()
        return [to_memory(r) for r in rows]

    def count_waiting(self) -> int:
        row = self._conn.execute(f"SELECT count(*) AS n FROM memories m WHERE {WAITING}").fetchone()
        return int(row["n"]) if row else 0

    def mark_announced(self, memory_ids: Sequence[str]) -> None:
        self._conn.execute(
            "UPDATE memories SET metadata = metadata || jsonb_build_object('review_announced_at', now())"
            " WHERE id = ANY(%s::uuid[])", (list(memory_ids),))

    def keep(self, memory_id: str, by: str) -> bool:
        """Trust a waiting memory, recording who kept it; False if it is not waiting."""
        return self._conn.execute(
            f"UPDATE memories SET trusted = true, promoted_at = now(), promoted_by = %(by)s, {_REVIEWED},"
            f" updated_at = now() WHERE {_STILL_WAITING}",
            {"id": memory_id, "by": by, "verdict": "kept"}).rowcount == 1

    def drop(self, memory_id: str, by: str) -> bool:
        """Archive a waiting memory (original kept in the archive), recording who dropped it."""
        params = {"id": memory_id, "by": by, "verdict": "dropped", "archived": ARCHIVED}
        self._conn.execute(
            "INSERT INTO memory_archive (memory_id, project, category, content, summary)"
            f" SELECT id, project, category, content, summary FROM memories WHERE {_STILL_WAITING}"
            " AND phase = 0 ON CONFLICT (memory_id) DO NOTHING", params)
        return self._conn.execute(
            f"UPDATE memories SET phase = %(archived)s, {_REVIEWED}, updated_at = now()"
            f" WHERE {_STILL_WAITING}",
            params).rowcount == 1
