"""Recording stand-ins for the Telegram front-end's outbound ports: the Bot API and its two queues."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from chalicelib.telegram.services.ports import Keyboard


@dataclass(frozen=True)
class Sent:
    chat_id: int
    topic_id: int
    text: str


@dataclass
class RecordingSender:
    """A MessageSender that keeps what it was asked; `fail_next` makes the next calls raise."""

    sent: list[Sent] = field(default_factory=list)
    renamed: list[tuple[int, int, str]] = field(default_factory=list)
    closed: list[tuple[int, int]] = field(default_factory=list)
    failures: list[Exception] = field(default_factory=list)
    topics_opened: int = 0

    def fail_next(self, *errors: Exception) -> None:
        self.failures.extend(errors)

    def _maybe_fail(self) -> None:
        if self.failures:
            raise self.failures.pop(0)

    def send(self, chat_id: int, text: str, *, topic_id: int = 0, keyboard: Keyboard | None = None) -> int:
        self._maybe_fail()
        self.sent.append(Sent(chat_id, topic_id, text))
        return len(self.sent)

    def create_topic(self, chat_id: int, name: str) -> int:
        self._maybe_fail()
        self.topics_opened += 1
        return 1000 + self.topics_opened

    def rename_topic(self, chat_id: int, topic_id: int, name: str) -> None:
        self._maybe_fail()
        self.renamed.append((chat_id, topic_id, name))

    def close_topic(self, chat_id: int, topic_id: int) -> None:
        self._maybe_fail()
        self.closed.append((chat_id, topic_id))

    def texts(self) -> list[str]:
        return [s.text for s in self.sent]


@dataclass
class RecordingTrigger:
    """A StreamTrigger that keeps the wake-ups (stream, delay) it was asked for."""

    wake_ups: list[tuple[str, int]] = field(default_factory=list)
    fail: bool = False

    def trigger(self, stream: str, delay_s: int = 0) -> None:
        if self.fail:
            raise ConnectionError("SQS is unreachable")
        self.wake_ups.append((stream, delay_s))


@dataclass
class RecordingUpdateQueue:
    queued: list[dict[str, Any]] = field(default_factory=list)
    fail: bool = False

    def send(self, update: Mapping[str, Any]) -> None:
        if self.fail:
            raise ConnectionError("SQS is unreachable")
        self.queued.append(dict(update))
