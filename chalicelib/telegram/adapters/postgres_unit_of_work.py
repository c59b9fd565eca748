"""The Telegram unit of work on Postgres: its repositories over one connection and transaction."""

from __future__ import annotations

from typing import Any

from chalicelib.kernel.idempotency import claim
from chalicelib.kernel.unit_of_work import PostgresUnitOfWork
from chalicelib.telegram.adapters.reminder_repository import ReminderRepository
from chalicelib.telegram.adapters.session_request_repository import SessionRequestRepository
from chalicelib.telegram.adapters.telegram_outbox_repository import TelegramOutboxRepository
from chalicelib.telegram.adapters.telegram_topic_repository import TelegramTopicRepository


class ProcessedKeysRepository:
    """`processed_messages`, the consumers' idempotency records, on this connection."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def claim(self, consumer: str, key: str) -> bool:
        return claim(self._conn, consumer, key)


class PostgresTelegramUnitOfWork(PostgresUnitOfWork):
    topics: TelegramTopicRepository
    outbox: TelegramOutboxRepository
    reminders: ReminderRepository
    session_requests: SessionRequestRepository
    processed: ProcessedKeysRepository

    def _bind(self, conn: Any) -> None:
        self.topics = TelegramTopicRepository(conn)
        self.outbox = TelegramOutboxRepository(conn)
        self.reminders = ReminderRepository(conn)
        self.session_requests = SessionRequestRepository(conn)
        self.processed = ProcessedKeysRepository(conn)
