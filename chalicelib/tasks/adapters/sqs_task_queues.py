"""SQS for task orchestration: the dispatch queue and one queue (+ DLQ) per machine."""

from __future__ import annotations

from typing import Any

from chalicelib.kernel.queue_table import MACHINE_QUEUE
from chalicelib.kernel.queues import SqsQueues

DISPATCH_KEY = "dispatch"


def machine_queue_key(machine_id: str) -> str:
    return f"machine-{machine_id}"


class SqsTaskQueues:
    def __init__(self, queues: SqsQueues) -> None:
        self._queues = queues

    def send_dispatch(self, task_id: str) -> None:
        self._queues.send(DISPATCH_KEY, {"task_id": task_id})

    def ensure_machine_queue(self, machine_id: str) -> str:
        """Create the machine's queue and its DLQ if missing (idempotent); return the queue URL."""
        return self._queues.ensure(MACHINE_QUEUE, key=machine_queue_key(machine_id))

    def send_to_machine(self, machine_id: str, body: dict[str, Any]) -> None:
        self._queues.send(machine_queue_key(machine_id), body)
