"""What the Lambda runtime gives a handler, built locally: contexts, SQS and schedule events."""

from __future__ import annotations

import hashlib
import importlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from chalicelib.kernel.queues import ReceivedMessage

Handler = Callable[[dict[str, Any], Any], Any]


@dataclass
class LocalLambdaContext:
    function_name: str
    timeout_s: int = 60
    memory_limit_in_mb: int = 512
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    _start: float = field(default_factory=lambda: datetime.now(UTC).timestamp())

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:local:000000000000:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        elapsed = datetime.now(UTC).timestamp() - self._start
        return max(0, int((self.timeout_s - elapsed) * 1000))


def load_handler(dotted: str) -> Handler:
    """Import "package.module:function"."""
    module_name, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module_name), attr)  # type: ignore[no-any-return]


def sqs_event(messages: list[ReceivedMessage], queue_arn: str, region: str) -> dict[str, Any]:
    return {
        "Records": [
            {
                "messageId": m.message_id,
                "receiptHandle": m.receipt_handle,
                "body": m.body,
                "attributes": {"ApproximateReceiveCount": str(m.receive_count)},
                "messageAttributes": {},
                "md5OfBody": hashlib.md5(m.body.encode(), usedforsecurity=False).hexdigest(),
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": region,
            }
            for m in messages
        ]
    }


def scheduled_event(rule_name: str, region: str) -> dict[str, Any]:
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "000000000000",
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": region,
        "resources": [f"arn:aws:events:{region}:000000000000:rule/{rule_name}"],
        "detail": {},
    }
