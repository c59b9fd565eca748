"""Postgres: the per-stream outbox of Telegram messages and each stream's pacing state.

One sender at a time per stream: `try_lock()` takes a transaction-scoped advisory lock, held
until the unit of work that took it ends, so rows are sent once and in id order.
"""

from __future__ import annotations

from collections.abc import Sequence

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.telegram.domain.telegram_records import OutboxRow, StreamState
from chalicelib.telegram.services.ports import OutboxItem

_LOCK_CLASS = 7_146_050  # advisory lock namespace of Telegram streams


class TelegramOutboxRepository(PostgresRepository):
    def enqueue(self, stream: str, chat_id: int, topic_id: int, items: Sequence[OutboxItem]) -> None:
        if not items:
            return
        with self._conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO telegram_outbox (stream, chat_id, topic_id, kind, body, position) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                [(stream, chat_id, topic_id, kind, body, position) for kind, body, position in items],
            )

    def try_lock(self, stream: str) -> bool:
        row = self._conn.execute("SELECT pg_try_advisory_xact_lock(%s, hashtext(%s)) AS got",
                                 (_LOCK_CLASS, stream)).fetchone()
        return bool(row and row["got"])

    def state(self, stream: str) -> StreamState:
        row = self._conn.execute("SELECT last_flush_at, not_before FROM telegram_streams WHERE stream = %s",
                                 (stream,)).fetchone()
        return StreamState(row["last_flush_at"], row["not_before"]) if row else StreamState(None, None)

    def pending(self, stream: str, limit: int = 100) -> list[OutboxRow]:
        rows = self._conn.execute(
            "SELECT id, chat_id, topic_id, kind, body FROM telegram_outbox WHERE stream = %s "
            "ORDER BY position NULLS LAST, id LIMIT %s", (stream, limit)).fetchall()
        return [OutboxRow(r["id"], int(r["chat_id"]), int(r["topic_id"]), r["kind"], r["body"]) for r in rows]

    def delivered(self, stream: str, ids: Sequence[int]) -> None:
        self._conn.execute("DELETE FROM telegram_outbox WHERE id = ANY(%s)", (list(ids),))
        self._conn.execute(
            "INSERT INTO telegram_streams (stream, last_flush_at) VALUES (%s, now()) "
            "ON CONFLICT (stream) DO UPDATE SET last_flush_at = now()", (stream,))

    def defer(self, stream: str, seconds: float) -> None:
        self._conn.execute(
            "INSERT INTO telegram_streams (stream, not_before) "
            "VALUES (%s, now() + make_interval(secs => %s)) "
            "ON CONFLICT (stream) DO UPDATE SET not_before = EXCLUDED.not_before", (stream, seconds))

    def drop(self, stream: str) -> int:
        return self._conn.execute("DELETE FROM telegram_outbox WHERE stream = %s", (stream,)).rowcount

    def stalled_streams(self, older_than_s: float, limit: int = 100) -> list[str]:
        rows = self._conn.execute(
            "SELECT stream FROM telegram_outbox GROUP BY stream "
            "HAVING min(created_at) < now() - make_interval(secs => %s) LIMIT %s",
            (older_than_s, limit)).fetchall()
        return [r["stream"] for r in rows]
