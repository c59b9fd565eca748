"""SQS: the queue of incoming updates, and the wake-ups of topic streams (`telegram-outbox`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chalicelib.kernel.queues import SqsQueues

UPDATES_QUEUE = "telegram-updates"
OUTBOX_QUEUE = "telegram-outbox"
MAX_DELAY_S = 900  # SQS's per-message ceiling


class SqsUpdateQueue:
    def __init__(self, queues: SqsQueues, key: str = UPDATES_QUEUE) -> None:
        self._queues = queues
        self._key = key

    def send(self, update: Mapping[str, Any]) -> None:
        self._queues.send(self._key, {"update": dict(update)})


class SqsStreamTrigger:
    def __init__(self, queues: SqsQueues, key: str = OUTBOX_QUEUE) -> None:
        self._queues = queues
        self._key = key

    def trigger(self, stream: str, delay_s: int = 0) -> None:
        self._queues.send(self._key, {"stream": stream}, delay_s=max(0, min(MAX_DELAY_S, int(delay_s))))
