"""Postgres: the forum topics the bot opened for tasks and sessions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.kernel.database import Database


@dataclass(frozen=True)
class Topic:
    kind: str  # task | session
    ref_id: str
    chat_id: int
    topic_id: int  # 0: the chat itself
    title: str
    status: str  # open | closed

    @property
    def stream(self) -> str:
        return f"{self.kind}:{self.ref_id}"


def _topic(row: dict[str, Any] | None) -> Topic | None:
    if row is None:
        return None
    return Topic(row["kind"], row["ref_id"], int(row["chat_id"]), int(row["topic_id"]), row["title"],
                 row["status"])


class TelegramTopicRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def register(self, kind: str, ref_id: str, chat_id: int, topic_id: int, title: str) -> Topic:
        """Record the topic of a task or session (the first registration wins)."""
        with self._db.connection() as conn:
            conn.execute(
                "INSERT INTO telegram_topics (kind, ref_id, chat_id, topic_id, title) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (kind, ref_id) DO NOTHING",
                (kind, ref_id, chat_id, topic_id, title),
            )
            row = conn.execute("SELECT * FROM telegram_topics WHERE kind = %s AND ref_id = %s",
                               (kind, ref_id)).fetchone()
        topic = _topic(row)
        assert topic is not None
        return topic

    def by_ref(self, kind: str, ref_id: str) -> Topic | None:
        with self._db.connection() as conn:
            return _topic(conn.execute("SELECT * FROM telegram_topics WHERE kind = %s AND ref_id = %s",
                                       (kind, ref_id)).fetchone())

    def by_thread(self, chat_id: int, topic_id: int) -> Topic | None:
        """The topic a message was written in, if the bot opened it."""
        if not topic_id:
            return None
        with self._db.connection() as conn:
            return _topic(conn.execute(
                "SELECT * FROM telegram_topics WHERE chat_id = %s AND topic_id = %s "
                "ORDER BY created_at DESC LIMIT 1", (chat_id, topic_id)).fetchone())

    def mark_closed(self, kind: str, ref_id: str) -> None:
        with self._db.connection() as conn:
            conn.execute("UPDATE telegram_topics SET status = 'closed', closed_at = now() "
                         "WHERE kind = %s AND ref_id = %s AND status = 'open'", (kind, ref_id))
