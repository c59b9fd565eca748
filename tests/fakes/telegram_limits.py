"""Telegram's flood control as the fake Bot API applies it: messages a chat and overall.

Telegram's FAQ for bots: no more than about 20 messages a minute in one group, about one a
second in one chat (short bursts allowed), about 30 a second overall; past that a 429 with
`parameters.retry_after` (whole seconds). The fake keeps one sliding window per limit, counts
each message the bot sends (sendMessage, sendDocument) when it is accepted, and answers a
message over a limit with the seconds until the window has room again. Tests may shorten every
window at once with `TelegramLimits.scaled` (run production pacing faster), or turn a limit off.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from tests.fakes.telegram_wire import ApiError

SENDING_METHODS = frozenset({"sendmessage", "senddocument"})


@dataclass(frozen=True)
class Window:
    """At most `count` messages in any `seconds`."""

    count: int
    seconds: float


@dataclass(frozen=True)
class TelegramLimits:
    """The windows for a group (or supergroup), a private chat and all chats together."""

    group: Window | None = Window(20, 60.0)
    private: Window | None = Window(30, 30.0)  # one a second, with the bursts Telegram allows
    overall: Window | None = Window(30, 1.0)

    def scaled(self, factor: float) -> TelegramLimits:
        """The same counts in windows `factor` times as long (0.01: a hundred times faster)."""
        def scale(window: Window | None) -> Window | None:
            return None if window is None else Window(window.count, window.seconds * factor)
        return replace(self, group=scale(self.group), private=scale(self.private),
                       overall=scale(self.overall))


UNLIMITED = TelegramLimits(group=None, private=None, overall=None)


@dataclass
class FloodControl:
    """Sent messages by chat, checked against `limits` on the `clock` (seconds, monotonic)."""

    limits: TelegramLimits = field(default_factory=TelegramLimits)
    clock: Callable[[], float] = time.monotonic
    refused: int = 0  # how many messages it answered with a 429
    _sent: dict[object, deque[float]] = field(default_factory=dict)

    def check(self, chat_id: int, chat_type: str) -> None:
        """Raise the 429 Telegram would answer a message to this chat now; call with a lock held."""
        now = self.clock()
        waits = [self._wait(key, window, now) for key, window in self._windows(chat_id, chat_type)]
        wait = max(waits, default=0.0)
        if wait > 0:
            self.refused += 1
            seconds = max(1, math.ceil(wait))
            raise ApiError(429, f"Too Many Requests: retry after {seconds}", {"retry_after": seconds})

    def record(self, chat_id: int, chat_type: str) -> None:
        """Count a message the fake accepted."""
        now = self.clock()
        for key, _ in self._windows(chat_id, chat_type):
            self._sent.setdefault(key, deque()).append(now)

    def _windows(self, chat_id: int, chat_type: str) -> list[tuple[object, Window]]:
        per_chat = self.limits.private if chat_type == "private" else self.limits.group
        found: list[tuple[object, Window]] = []
        if per_chat is not None:
            found.append((chat_id, per_chat))
        if self.limits.overall is not None:
            found.append(("overall", self.limits.overall))
        return found

    def _wait(self, key: object, window: Window, now: float) -> float:
        sent = self._sent.setdefault(key, deque())
        while sent and sent[0] <= now - window.seconds:
            sent.popleft()
        if len(sent) < window.count:
            return 0.0
        return sent[len(sent) - window.count] + window.seconds - now
