"""What the Telegram front-end keeps: topics, outbox rows, stream pacing, reminders, /session requests."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Topic:
    """The forum topic the bot opened for a task or session."""

    kind: str  # task | session
    ref_id: str
    chat_id: int
    topic_id: int  # 0: the chat itself
    title: str
    status: str  # open | closed

    @property
    def stream(self) -> str:
        return f"{self.kind}:{self.ref_id}"


@dataclass(frozen=True)
class OutboxRow:
    """One piece of a stream's pending output (each already fits one message)."""

    id: int
    chat_id: int
    topic_id: int
    kind: str  # text | close
    body: str


@dataclass(frozen=True)
class StreamState:
    last_flush_at: datetime | None
    not_before: datetime | None  # Telegram's retry_after, if it asked us to wait


@dataclass(frozen=True)
class DueReminder:
    id: int
    chat_id: int
    topic_id: int
    user_id: int
    message: str
    due_at: datetime
    attempts: int


@dataclass(frozen=True)
class SessionRequestRow:
    """A /session waiting for its engine-and-mode button."""

    id: str
    chat_id: int
    topic_id: int
    user_id: int
    machine: str
    prompt: str
