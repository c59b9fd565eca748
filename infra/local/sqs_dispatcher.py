"""Local SQS-to-handler loop: what Lambda's event source mapping does in AWS.

Each consumer queue gets a thread that long-polls, invokes the handler with an SQS event and
deletes every message not reported in `batchItemFailures`. Failed messages reappear after the
visibility timeout and move to the DLQ after `max_receive_count` receives (moto's redrive).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from chalicelib.kernel.logging import get_logger, log_failure
from chalicelib.kernel.queue_table import QUEUES, QueueSpec
from chalicelib.kernel.queues import SqsQueues
from infra.local.lambda_runtime import LocalLambdaContext, load_handler, sqs_event


def deliver_batch(queues: SqsQueues, spec: QueueSpec, *, wait_s: int = 1) -> int:
    """Receive one batch, run the consumer, delete the successes; return messages received."""
    messages = queues.receive(spec.key, max_messages=spec.batch_size, wait_s=wait_s)
    if not messages:
        return 0
    assert spec.consumer is not None
    handler = load_handler(spec.consumer)
    event = sqs_event(messages, f"arn:aws:sqs:local:000000000000:{queues.name(spec.key)}", "local")
    try:
        result: Any = handler(event, LocalLambdaContext(spec.key, timeout_s=spec.consumer_timeout_s))
        failed = {f["itemIdentifier"] for f in (result or {}).get("batchItemFailures", [])}
    except Exception as exc:  # the whole batch failed, as a crashed Lambda would
        log_failure("consumer crashed", exc, queue=spec.key)
        failed = {m.message_id for m in messages}
    for m in messages:
        if m.message_id not in failed:
            queues.delete(spec.key, m.receipt_handle)
    return len(messages)


class SqsDispatcher:
    def __init__(self, queues: SqsQueues, specs: Sequence[QueueSpec] = QUEUES) -> None:
        self._queues = queues
        self._specs = [s for s in specs if s.consumer]
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._loop, args=(s,), name=f"sqs-{s.key}", daemon=True)
            for s in self._specs
        ]

    def start(self) -> None:
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=10)

    @property
    def alive(self) -> bool:
        return all(t.is_alive() for t in self._threads)

    def _loop(self, spec: QueueSpec) -> None:
        while not self._stop.is_set():
            try:
                deliver_batch(self._queues, spec, wait_s=1)
            except Exception:  # a transport error must not end the loop
                get_logger().exception("sqs dispatch error", extra={"queue": spec.key})
                self._stop.wait(1.0)
