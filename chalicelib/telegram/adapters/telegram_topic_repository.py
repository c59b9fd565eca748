"""Postgres: the forum topics the bot opened for tasks and sessions."""

from __future__ import annotations

from typing import Any

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.telegram.domain.telegram_records import Topic


def _topic(row: dict[str, Any] | None) -> Topic | None:
    if row is None:
        return None
    return Topic(row["kind"], row["ref_id"], int(row["chat_id"]), int(row["topic_id"]), row["title"],
                 row["status"])


class TelegramTopicRepository(PostgresRepository):
    def register(self, kind: str, ref_id: str, chat_id: int, topic_id: int, title: str) -> Topic:
        self._conn.execute(
            "INSERT INTO telegram_topics (kind, ref_id, chat_id, topic_id, title) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (kind, ref_id) DO NOTHING",
            (kind, ref_id, chat_id, topic_id, title),
        )
        topic = self.by_ref(kind, ref_id)
        assert topic is not None
        return topic

    def by_ref(self, kind: str, ref_id: str) -> Topic | None:
        return _topic(self._conn.execute("SELECT * FROM telegram_topics WHERE kind = %s AND ref_id = %s",
                                         (kind, ref_id)).fetchone())

    def by_thread(self, chat_id: int, topic_id: int) -> Topic | None:
        return _topic(self._conn.execute(
            "SELECT * FROM telegram_topics WHERE chat_id = %s AND topic_id = %s "
            "ORDER BY created_at DESC LIMIT 1", (chat_id, topic_id)).fetchone())

    def mark_closed(self, kind: str, ref_id: str) -> None:
        self._conn.execute("UPDATE telegram_topics SET status = 'closed', closed_at = now() "
                           "WHERE kind = %s AND ref_id = %s AND status = 'open'", (kind, ref_id))
