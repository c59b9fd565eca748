"""Consumer idempotency: a business key is recorded once, in the same transaction as its effect."""

from __future__ import annotations

from typing import Any

import psycopg

from chalicelib.kernel.database import Database


def claim(conn: psycopg.Connection[Any], consumer: str, key: str) -> bool:
    """Record (consumer, key) inside the caller's transaction; False if it was already processed."""
    row = conn.execute(
        "INSERT INTO processed_messages (consumer, message_key) VALUES (%s, %s) "
        "ON CONFLICT DO NOTHING RETURNING message_key",
        (consumer, key),
    ).fetchone()
    return row is not None


class IdempotencyRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def purge_older_than(self, days: int) -> int:
        """Delete records older than `days`; return how many were removed."""
        with self._db.connection() as conn:
            cur = conn.execute(
                "DELETE FROM processed_messages WHERE processed_at < now() - make_interval(days => %s)",
                (days,),
            )
            return cur.rowcount


class PostgresClaims:
    """`claim` over a unit of work's connection: the claim commits (or not) with the work."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn

    def claim(self, consumer: str, key: str) -> bool:
        """Record (consumer, key); False if it was already processed."""
        return claim(self._conn, consumer, key)
