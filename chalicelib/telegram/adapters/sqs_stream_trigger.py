"""SQS: wake a Telegram stream's sender, now or after a delay (the `telegram-outbox` queue)."""

from __future__ import annotations

import json

from chalicelib.kernel.queues import SqsQueues

OUTBOX_QUEUE = "telegram-outbox"
MAX_DELAY_S = 900  # SQS's per-message ceiling


class SqsStreamTrigger:
    def __init__(self, queues: SqsQueues, key: str = OUTBOX_QUEUE) -> None:
        self._queues = queues
        self._key = key

    def trigger(self, stream: str, delay_s: int = 0) -> None:
        self._queues.client.send_message(
            QueueUrl=self._queues.url(self._key),
            MessageBody=json.dumps({"stream": stream}),
            DelaySeconds=max(0, min(MAX_DELAY_S, int(delay_s))),
        )
