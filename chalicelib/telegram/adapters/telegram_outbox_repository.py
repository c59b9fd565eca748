"""Postgres: the per-stream outbox of Telegram messages and each stream's pacing state.

One sender at a time per stream: `lock()` takes a transaction-scoped advisory lock on a
connection of its own, held while the sender works, so rows are sent once and in id order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from chalicelib.kernel.database import Database

_LOCK_CLASS = 7_146_050  # advisory lock namespace of Telegram streams


@dataclass(frozen=True)
class OutboxRow:
    id: int
    chat_id: int
    topic_id: int
    kind: str  # text | close
    body: str


@dataclass(frozen=True)
class StreamState:
    last_flush_at: datetime | None
    not_before: datetime | None


class TelegramOutboxRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def enqueue(self, stream: str, chat_id: int, topic_id: int,
                items: Sequence[tuple[str, str, int | None]]) -> None:
        """Append (kind, body, position) items; they are sent by position (none: last), then in order."""
        if not items:
            return
        with self._db.connection() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO telegram_outbox (stream, chat_id, topic_id, kind, body, position) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                [(stream, chat_id, topic_id, kind, body, position) for kind, body, position in items],
            )

    @contextmanager
    def lock(self, stream: str) -> Iterator[bool]:
        """Yield True while holding the stream's sender lock, False if another sender holds it."""
        with self._db.connection() as conn:
            row = conn.execute("SELECT pg_try_advisory_xact_lock(%s, hashtext(%s)) AS got",
                               (_LOCK_CLASS, stream)).fetchone()
            yield bool(row and row["got"])

    def state(self, stream: str) -> StreamState:
        with self._db.connection() as conn:
            row = conn.execute("SELECT last_flush_at, not_before FROM telegram_streams WHERE stream = %s",
                               (stream,)).fetchone()
        return StreamState(row["last_flush_at"], row["not_before"]) if row else StreamState(None, None)

    def pending(self, stream: str, limit: int = 100) -> list[OutboxRow]:
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT id, chat_id, topic_id, kind, body FROM telegram_outbox WHERE stream = %s "
                "ORDER BY position NULLS LAST, id LIMIT %s", (stream, limit)).fetchall()
        return [OutboxRow(r["id"], int(r["chat_id"]), int(r["topic_id"]), r["kind"], r["body"]) for r in rows]

    def delivered(self, stream: str, ids: Sequence[int]) -> None:
        """Forget delivered rows and note the flush time."""
        with self._db.connection() as conn:
            conn.execute("DELETE FROM telegram_outbox WHERE id = ANY(%s)", (list(ids),))
            conn.execute(
                "INSERT INTO telegram_streams (stream, last_flush_at) VALUES (%s, now()) "
                "ON CONFLICT (stream) DO UPDATE SET last_flush_at = now()", (stream,))

    def defer(self, stream: str, seconds: float) -> None:
        """Hold the stream back for `seconds` (Telegram's retry_after)."""
        with self._db.connection() as conn:
            conn.execute(
                "INSERT INTO telegram_streams (stream, not_before) "
                "VALUES (%s, now() + make_interval(secs => %s)) "
                "ON CONFLICT (stream) DO UPDATE SET not_before = EXCLUDED.not_before", (stream, seconds))

    def drop(self, stream: str) -> int:
        """Discard a stream's pending rows (its topic is gone); return how many."""
        with self._db.connection() as conn:
            return conn.execute("DELETE FROM telegram_outbox WHERE stream = %s", (stream,)).rowcount

    def stalled_streams(self, older_than_s: float, limit: int = 100) -> list[str]:
        """Streams with rows waiting longer than `older_than_s`: their wake-up may have been lost."""
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT stream FROM telegram_outbox GROUP BY stream "
                "HAVING min(created_at) < now() - make_interval(secs => %s) LIMIT %s",
                (older_than_s, limit)).fetchall()
        return [r["stream"] for r in rows]
