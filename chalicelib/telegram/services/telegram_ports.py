"""Ports of the Telegram front-end: sending to Telegram, waking a stream's sender, publishing output.

`EventPublisher` is the hook the task and session code calls after it records events, so
their output reaches the forum topic of the task or session (nothing happens when Telegram is
not configured or the task has no topic).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

Keyboard = Sequence[Sequence[tuple[str, str]]]  # rows of (label, callback data)


class FloodControl(Exception):
    """Telegram asked us to wait `seconds` before the next message (HTTP 429 retry_after)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"flood control: retry after {seconds} s")
        self.seconds = seconds


class Undeliverable(Exception):
    """The message can never be delivered as asked (topic closed or deleted, bot removed)."""


class MessageSender(Protocol):
    def send(self, chat_id: int, text: str, *, topic_id: int = 0, keyboard: Keyboard | None = None) -> int:
        """Send plain text; return the message id. Raise FloodControl or Undeliverable."""
        ...

    def create_topic(self, chat_id: int, name: str) -> int:
        """Open a forum topic; return its message_thread_id. Raise Undeliverable if not a forum."""
        ...

    def rename_topic(self, chat_id: int, topic_id: int, name: str) -> None: ...

    def close_topic(self, chat_id: int, topic_id: int) -> None: ...


class StreamTrigger(Protocol):
    def trigger(self, stream: str, delay_s: int = 0) -> None:
        """Ask for the stream's pending output to be sent after `delay_s` seconds."""
        ...


class EventPublisher(Protocol):
    def published(self, ref_id: str, events: Sequence[Mapping[str, Any]], *, kind: str = "task") -> None:
        """Stream newly recorded events (mappings with `kind` and `text`) of a task or session."""
        ...

    def finished(self, ref_id: str, status: str, summary: str, *, kind: str = "task",
                 files_changed: Sequence[str] = ()) -> None:
        """Post the final result and close the story of the task's or session's topic."""
        ...


class NullEventPublisher:
    """Used when no bot token is configured: output goes nowhere."""

    def published(self, ref_id: str, events: Sequence[Mapping[str, Any]], *, kind: str = "task") -> None:
        return None

    def finished(self, ref_id: str, status: str, summary: str, *, kind: str = "task",
                 files_changed: Sequence[str] = ()) -> None:
        return None
