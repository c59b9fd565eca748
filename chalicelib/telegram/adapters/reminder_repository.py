"""Postgres: reminders set with /remind, taken when due by the `reminders` schedule."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chalicelib.kernel.database import Database

MAX_ATTEMPTS = 5


@dataclass(frozen=True)
class DueReminder:
    id: int
    chat_id: int
    topic_id: int
    user_id: int
    message: str
    due_at: datetime
    attempts: int


def _reminder(row: dict[str, Any]) -> DueReminder:
    return DueReminder(row["id"], int(row["chat_id"]), int(row["topic_id"]), int(row["user_id"]),
                       row["message"], row["due_at"], row["attempts"])


class ReminderRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add(self, chat_id: int, topic_id: int, user_id: int, message: str, due_at: datetime) -> int:
        with self._db.connection() as conn:
            row = conn.execute(
                "INSERT INTO reminders (chat_id, topic_id, user_id, message, due_at) "
                "VALUES (%s, %s, %s, %s, %s) RETURNING id", (chat_id, topic_id, user_id, message, due_at),
            ).fetchone()
        assert row is not None
        return int(row["id"])

    def take_due(self, limit: int = 50) -> list[DueReminder]:
        """Mark due reminders sent and return them; concurrent takers never get the same one."""
        with self._db.connection() as conn:
            rows = conn.execute(
                "UPDATE reminders SET sent_at = now(), attempts = attempts + 1 WHERE id IN ("
                " SELECT id FROM reminders WHERE sent_at IS NULL AND due_at <= now() "
                " ORDER BY due_at LIMIT %s FOR UPDATE SKIP LOCKED) "
                "RETURNING id, chat_id, topic_id, user_id, message, due_at, attempts", (limit,),
            ).fetchall()
        return sorted((_reminder(r) for r in rows), key=lambda r: r.due_at)

    def release(self, reminder_id: int) -> bool:
        """Put back a reminder whose message failed; False once it has used its attempts."""
        with self._db.connection() as conn:
            row = conn.execute(
                "UPDATE reminders SET sent_at = NULL WHERE id = %s AND attempts < %s RETURNING id",
                (reminder_id, MAX_ATTEMPTS)).fetchone()
        return row is not None

    def pending_for(self, user_id: int, limit: int = 20) -> list[DueReminder]:
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT id, chat_id, topic_id, user_id, message, due_at, attempts FROM reminders "
                "WHERE user_id = %s AND sent_at IS NULL ORDER BY due_at LIMIT %s", (user_id, limit),
            ).fetchall()
        return [_reminder(r) for r in rows]
