"""SQS for task orchestration: the dispatch queue and one queue (+ DLQ, + the DLQ's alarm) per machine."""

from __future__ import annotations

from typing import Any

from chalicelib.kernel.dlq_alarms import DlqAlarms
from chalicelib.kernel.queue_table import DLQ_SUFFIX, MACHINE_QUEUE
from chalicelib.kernel.queues import SqsQueues

DISPATCH_KEY = "dispatch"


def machine_queue_key(machine_id: str) -> str:
    return f"machine-{machine_id}"


class SqsTaskQueues:
    def __init__(self, queues: SqsQueues, dlq_alarms: DlqAlarms | None = None) -> None:
        self._queues = queues
        self._dlq_alarms = dlq_alarms

    def send_dispatch(self, task_id: str) -> None:
        self._queues.send(DISPATCH_KEY, {"task_id": task_id})

    def ensure_machine_queue(self, machine_id: str) -> str:
        """Create the machine's queue, its DLQ and the DLQ's alarm if missing (idempotent); return
        the queue URL."""
        key = machine_queue_key(machine_id)
        url = self._queues.ensure(MACHINE_QUEUE, key=key)
        if self._dlq_alarms is not None:
            self._dlq_alarms.watch(self._queues.name(f"{key}{DLQ_SUFFIX}"))
        return url

    def send_to_machine(self, machine_id: str, body: dict[str, Any]) -> None:
        self._queues.send(machine_queue_key(machine_id), body)
