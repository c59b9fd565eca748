"""The Telegram unit of work on Postgres: its repositories over one connection and transaction."""

from __future__ import annotations

from typing import Any

from chalicelib.kernel.idempotency import PostgresClaims
from chalicelib.kernel.unit_of_work import PostgresUnitOfWork
from chalicelib.telegram.adapters.folder_walk_repository import FolderWalkRepository
from chalicelib.telegram.adapters.reminder_repository import ReminderRepository
from chalicelib.telegram.adapters.resume_listing_repository import ResumeListingRepository
from chalicelib.telegram.adapters.session_request_repository import SessionRequestRepository
from chalicelib.telegram.adapters.telegram_outbox_repository import TelegramOutboxRepository
from chalicelib.telegram.adapters.telegram_topic_repository import TelegramTopicRepository


class PostgresTelegramUnitOfWork(PostgresUnitOfWork):
    topics: TelegramTopicRepository
    outbox: TelegramOutboxRepository
    reminders: ReminderRepository
    session_requests: SessionRequestRepository
    folder_walks: FolderWalkRepository
    resume_listings: ResumeListingRepository
    processed: PostgresClaims  # the consumers' idempotency records (`processed_messages`)

    def _bind(self, conn: Any) -> None:
        self.topics = TelegramTopicRepository(conn)
        self.outbox = TelegramOutboxRepository(conn)
        self.reminders = ReminderRepository(conn)
        self.session_requests = SessionRequestRepository(conn)
        self.folder_walks = FolderWalkRepository(conn)
        self.resume_listings = ResumeListingRepository(conn)
        self.processed = PostgresClaims(conn)
