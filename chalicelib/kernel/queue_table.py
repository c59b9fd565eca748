"""The queue table: every SQS queue the system uses, with its DLQ policy.

`infra/` renders it into CloudFormation and `itachi up` creates the same queues in moto.
A queue's visibility timeout is six times its consumer's timeout (AWS's guidance for
Lambda event sources), and a message that fails `max_receive_count` times moves to the DLQ.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class QueueSpec:
    key: str  # logical name used in code: settings.queue_prefix + "-" + key
    consumer: str | None  # "module:function" of the SQS consumer Lambda, None if polled by agents
    consumer_timeout_s: int = 60
    max_receive_count: int = 5
    batch_size: int = 10

    @property
    def visibility_timeout_s(self) -> int:
        return self.consumer_timeout_s * 6

    @property
    def dlq_key(self) -> str:
        return f"{self.key}{DLQ_SUFFIX}"


QUEUES: tuple[QueueSpec, ...] = (
    QueueSpec("dispatch", consumer="functions.dispatch_consumer:handler", consumer_timeout_s=30),
    QueueSpec("telegram-updates", consumer="functions.telegram_consumer:handler",
              consumer_timeout_s=60, batch_size=5),
    # Wake-ups of task and session topic streams (the outbox itself is in Postgres).
    QueueSpec("telegram-outbox", consumer="functions.telegram_outbox:handler",
              consumer_timeout_s=60, batch_size=10),
    QueueSpec("ingest", consumer="functions.ingest_consumer:handler", consumer_timeout_s=120,
              batch_size=5),
)

# Per-machine agent queues are created at registration (name: "<prefix>-machine-<id>"),
# with the same DLQ policy as this template spec.
MACHINE_QUEUE = QueueSpec("machine", consumer=None, consumer_timeout_s=300, max_receive_count=3)


_MACHINE_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
DLQ_SUFFIX = "-dlq"


MACHINE_ID_RULE = "1-40 letters, digits, '-' or '_', not ending in -dlq"


def valid_machine_id(machine_id: str) -> bool:
    """1-40 letters, digits, '-' or '_', and never ending in `-dlq`: machine `x-dlq`'s queue would
    be machine `x`'s dead-letter queue."""
    return bool(_MACHINE_ID.match(machine_id)) and not machine_id.lower().endswith(DLQ_SUFFIX)


def queue_name(prefix: str, key: str) -> str:
    return f"{prefix}-{key}"
