"""`telegram-outbox`: send the pending output of task and session topics.

`handler` (SQS) pumps each stream named in the batch once, streams in parallel (each stream's
own order is kept by its lock), with Powertools batch processing: every wake-up of a stream
whose pump failed is reported for redelivery, a malformed one too. Each pump's logs carry its
stream (`task:<id>` or `session:<id>`) as `correlation_id`. `sweep` (scheduled) wakes streams
whose wake-up was lost.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aws_lambda_powertools.utilities.batch import (
    AsyncBatchProcessor,
    EventType,
    async_process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from pydantic import BaseModel, ConfigDict, ValidationError

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import correlation_id, get_logger, log_failure
from chalicelib.telegram.services.topic_streams import TopicStreams

MAX_PARALLEL_STREAMS = 8
STALLED_AFTER_S = 30.0


class WakeUp(BaseModel):
    model_config = ConfigDict(extra="ignore")
    stream: str


class StreamPumps:
    """One pump per stream named in a batch, however many of its wake-ups the batch holds."""

    def __init__(self, streams: TopicStreams, pool: ThreadPoolExecutor) -> None:
        self._streams = streams
        self._pool = pool
        self._pumps: dict[str, asyncio.Future[int]] = {}

    async def record_handler(self, record: SQSRecord) -> int:
        try:
            stream = WakeUp.model_validate_json(record.body).stream
        except ValidationError:
            get_logger().warning("malformed outbox message", extra={"message_id": record.message_id})
            raise
        if stream not in self._pumps:
            self._pumps[stream] = asyncio.get_running_loop().run_in_executor(self._pool, self._pump, stream)
        return await self._pumps[stream]

    def _pump(self, stream: str) -> int:
        with correlation_id(stream):
            try:
                return self._streams.pump(stream)
            except Exception as exc:
                log_failure("telegram stream pump failed", exc, stream=stream)
                raise


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    streams = get_container().topic_streams
    processor = AsyncBatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    with ThreadPoolExecutor(max_workers=MAX_PARALLEL_STREAMS, thread_name_prefix="outbox") as pool:
        pumps = StreamPumps(streams, pool)
        return dict(async_process_partial_response(event=event, record_handler=pumps.record_handler,
                                                   processor=processor, context=context))


def sweep(event: dict[str, Any], context: Any) -> dict[str, Any]:
    container = get_container()
    if not container.telegram_enabled:
        return {"woken": 0}
    return {"woken": container.topic_streams.wake_stalled(STALLED_AFTER_S)}
