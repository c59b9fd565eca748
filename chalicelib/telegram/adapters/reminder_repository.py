"""Postgres: reminders set with /remind, taken when due by the `reminders` schedule."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.telegram.domain.telegram_records import DueReminder

MAX_ATTEMPTS = 5
_COLUMNS = "id, chat_id, topic_id, user_id, message, due_at, attempts"


def _reminder(row: dict[str, Any]) -> DueReminder:
    return DueReminder(row["id"], int(row["chat_id"]), int(row["topic_id"]), int(row["user_id"]),
                       row["message"], row["due_at"], row["attempts"])


class ReminderRepository(PostgresRepository):
    def add(self, chat_id: int, topic_id: int, user_id: int, message: str, due_at: datetime) -> int:
        row = self._conn.execute(
            "INSERT INTO reminders (chat_id, topic_id, user_id, message, due_at) "
            "VALUES (%s, %s, %s, %s, %s) RETURNING id", (chat_id, topic_id, user_id, message, due_at),
        ).fetchone()
        assert row is not None
        return int(row["id"])

    def take_due(self, limit: int = 50) -> list[DueReminder]:
        rows = self._conn.execute(
            "UPDATE reminders SET sent_at = now(), attempts = attempts + 1 WHERE id IN ("
            " SELECT id FROM reminders WHERE sent_at IS NULL AND due_at <= now() "
            f" ORDER BY due_at LIMIT %s FOR UPDATE SKIP LOCKED) RETURNING {_COLUMNS}", (limit,),
        ).fetchall()
        return sorted((_reminder(r) for r in rows), key=lambda r: r.due_at)

    def release(self, reminder_id: int) -> bool:
        row = self._conn.execute(
            "UPDATE reminders SET sent_at = NULL WHERE id = %s AND attempts < %s RETURNING id",
            (reminder_id, MAX_ATTEMPTS)).fetchone()
        return row is not None

    def pending_for(self, user_id: int, limit: int = 20) -> list[DueReminder]:
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM reminders "
            "WHERE user_id = %s AND sent_at IS NULL ORDER BY due_at LIMIT %s", (user_id, limit),
        ).fetchall()
        return [_reminder(r) for r in rows]
