"""Ports of the Telegram front-end: the Bot API, the two queues, and the unit of work over its tables.

The unit of work exposes one repository per table group, all on one transaction; services
commit once and register what leaves the process (SQS wake-ups) with `after_commit`.
Postgres implements it in `adapters/postgres_unit_of_work.py`; tests use in-memory fakes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from chalicelib.kernel.unit_of_work import UnitOfWork
from chalicelib.telegram.domain.folder_walk import FolderWalk
from chalicelib.telegram.domain.resume_choices import ResumeListing
from chalicelib.telegram.domain.telegram_records import (
    DueReminder,
    OutboxRow,
    SessionRequestRow,
    StreamState,
    Topic,
)

Keyboard = Sequence[Sequence[tuple[str, str]]]  # rows of (label, callback data)
OutboxItem = tuple[str, str, int | None]  # (kind, body, position)


class SendFailed(Exception):
    """The Bot API did not take the request (network error, timeout, or an answer below)."""


class FloodControl(SendFailed):
    """Telegram asked us to wait `seconds` before the next message (HTTP 429 retry_after)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"flood control: retry after {seconds} s")
        self.seconds = seconds


class Undeliverable(SendFailed):
    """The message can never be delivered as asked (topic closed or deleted, bot removed)."""


class MessageSender(Protocol):
    def send(self, chat_id: int, text: str, *, topic_id: int = 0, keyboard: Keyboard | None = None) -> int:
        """Send plain text; return the message id. Raise FloodControl, Undeliverable or SendFailed."""
        ...

    def create_topic(self, chat_id: int, name: str) -> int:
        """Open a forum topic; return its message_thread_id. Raise Undeliverable if not a forum."""
        ...

    def rename_topic(self, chat_id: int, topic_id: int, name: str) -> None: ...

    def close_topic(self, chat_id: int, topic_id: int) -> None: ...


class Transcriber(Protocol):
    """Voice notes to text (the LLM capability's, within its daily budget)."""

    @property
    def enabled(self) -> bool:
        """False when no transcription key is configured."""
        ...

    def transcribe(self, purpose: str, audio: bytes, file_name: str, seconds: int) -> str | None:
        """The words, or None (over budget, failed, nothing heard)."""
        ...


class StreamTrigger(Protocol):
    def trigger(self, stream: str, delay_s: int = 0) -> None:
        """Ask for the stream's pending output to be sent after `delay_s` seconds."""
        ...


class UpdateQueue(Protocol):
    def send(self, update: Mapping[str, Any]) -> None:
        """Queue an update for the consumer that runs the bot's handlers."""
        ...


class TopicRepository(Protocol):
    def register(self, kind: str, ref_id: str, chat_id: int, topic_id: int, title: str) -> Topic:
        """Record the topic of a task or session (the first registration wins); return it."""
        ...

    def by_ref(self, kind: str, ref_id: str) -> Topic | None: ...

    def by_thread(self, chat_id: int, topic_id: int) -> Topic | None:
        """The latest topic opened in that chat with that thread id."""
        ...

    def mark_closed(self, kind: str, ref_id: str) -> None: ...


class OutboxRepository(Protocol):
    def enqueue(self, stream: str, chat_id: int, topic_id: int, items: Sequence[OutboxItem]) -> None:
        """Append items; they are sent by position (none: last), then in order of arrival."""
        ...

    def try_lock(self, stream: str) -> bool:
        """Take the stream's sender lock until this unit of work ends; False if another holds it."""
        ...

    def state(self, stream: str) -> StreamState: ...

    def pending(self, stream: str, limit: int = 100) -> list[OutboxRow]: ...

    def delivered(self, stream: str, ids: Sequence[int]) -> None:
        """Forget the delivered rows (by id) and note the flush time on `stream`, a stream's or a
        chat's pace key."""
        ...

    def defer(self, stream: str, seconds: float) -> None:
        """Hold `stream` (a stream's or a chat's pace key) back for `seconds` (Telegram's retry_after)."""
        ...

    def drop(self, stream: str) -> int:
        """Discard a stream's pending rows (its topic is gone); return how many."""
        ...

    def stalled_streams(self, older_than_s: float, limit: int = 100) -> list[str]:
        """Streams whose oldest pending row is older than `older_than_s`."""
        ...


class ReminderRepository(Protocol):
    def add(self, chat_id: int, topic_id: int, user_id: int, message: str, due_at: datetime) -> int: ...

    def take_due(self, limit: int = 50) -> list[DueReminder]:
        """Mark due reminders sent and return them, oldest first; concurrent takers never share one."""
        ...

    def release(self, reminder_id: int) -> bool:
        """Put back a reminder whose message failed; False once it has used its attempts."""
        ...

    def pending_for(self, user_id: int, limit: int = 20) -> list[DueReminder]: ...


class SessionRequestRepository(Protocol):
    def add(self, request: SessionRequestRow) -> None: ...

    def choose(self, request_id: str) -> SessionRequestRow | None:
        """Take the request once: a second choice gets None."""
        ...

    def attach_session(self, request_id: str, session_id: str) -> None: ...


class FolderWalkRepository(Protocol):
    def add(self, walk: FolderWalk) -> None: ...

    def by_thread(self, chat_id: int, topic_id: int) -> FolderWalk | None:
        """The walk going on in a topic (locked for this transaction)."""
        ...

    def by_listing(self, listing_id: str) -> FolderWalk | None: ...

    def asked(self, request_id: str, listing_id: str) -> None: ...

    def listed(self, request_id: str, path: str, parent: str | None, entries: Sequence[Mapping[str, Any]],
               total: int, offset: int) -> None: ...

    def started(self, request_id: str) -> bool:
        """Mark the walk done, once: False if it already was."""
        ...


class ResumeListingRepository(Protocol):
    def add(self, listing: ResumeListing) -> None: ...

    def get(self, listing_id: str) -> ResumeListing | None:
        """The listing, locked for this transaction."""
        ...

    def listed(self, listing_id: str, path: str, sessions: Sequence[Mapping[str, Any]]) -> None: ...

    def chosen(self, listing_id: str) -> bool:
        """Mark the listing chosen, once: False if a session was already chosen from it."""
        ...


class ProcessedKeys(Protocol):
    def claim(self, consumer: str, key: str) -> bool:
        """Record (consumer, key) in this transaction; False if it was already recorded."""
        ...


class TelegramUnitOfWork(UnitOfWork, Protocol):
    topics: TopicRepository
    outbox: OutboxRepository
    reminders: ReminderRepository
    session_requests: SessionRequestRepository
    folder_walks: FolderWalkRepository
    resume_listings: ResumeListingRepository
    processed: ProcessedKeys


UnitOfWorkFactory = Callable[[], TelegramUnitOfWork]
