"""`telegram-outbox`: send the pending output of task and session topics.

`handler` (SQS) pumps each stream named in the batch once, streams in parallel (each stream's
own order is kept by its lock). `sweep` (scheduled) wakes streams whose wake-up was lost.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger

MAX_PARALLEL_STREAMS = 8
STALLED_AFTER_S = 30.0


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    streams = get_container().telegram.streams
    records: dict[str, list[str]] = {}
    failures = []
    for record in event.get("Records", []):
        try:
            records.setdefault(str(json.loads(record["body"])["stream"]), []).append(record["messageId"])
        except (ValueError, KeyError, TypeError):
            get_logger().warning("malformed outbox message", extra={"message_id": record.get("messageId")})
            failures.append({"itemIdentifier": record["messageId"]})

    def pump(stream: str) -> list[str]:
        try:
            streams.pump(stream)
            return []
        except Exception:
            get_logger().exception("telegram stream pump failed", extra={"stream": stream})
            return records[stream]

    if records:
        with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL_STREAMS, len(records))) as pool:
            for failed in pool.map(pump, list(records)):
                failures += [{"itemIdentifier": message_id} for message_id in failed]
    return {"batchItemFailures": failures}


def sweep(event: dict[str, Any], context: Any) -> dict[str, Any]:
    telegram = get_container().telegram
    if not telegram.enabled:
        return {"woken": 0}
    woken = telegram.streams.wake_stalled(STALLED_AFTER_S)
    return {"woken": woken}
