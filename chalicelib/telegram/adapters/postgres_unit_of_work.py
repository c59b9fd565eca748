"""The Telegram unit of work on Postgres: its repositories over one connection and transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.kernel.idempotency import PostgresClaims
from chalicelib.kernel.unit_of_work import postgres_units
from chalicelib.telegram.adapters.folder_walk_repository import FolderWalkRepository
from chalicelib.telegram.adapters.reminder_repository import ReminderRepository
from chalicelib.telegram.adapters.resume_listing_repository import ResumeListingRepository
from chalicelib.telegram.adapters.session_request_repository import SessionRequestRepository
from chalicelib.telegram.adapters.telegram_outbox_repository import TelegramOutboxRepository
from chalicelib.telegram.adapters.telegram_topic_repository import TelegramTopicRepository
from chalicelib.telegram.services.ports import TelegramUnitOfWork


def telegram_units(db: Any) -> Callable[[], TelegramUnitOfWork]:
    return postgres_units(
        db, topics=TelegramTopicRepository, outbox=TelegramOutboxRepository, reminders=ReminderRepository,
        session_requests=SessionRequestRepository, folder_walks=FolderWalkRepository,
        resume_listings=ResumeListingRepository,
        processed=PostgresClaims)  # the consumers' idempotency records (`processed_messages`)
