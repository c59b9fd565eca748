"""SQS consumer of the dispatch queue: each message names a task to send to a machine.

Partial batch responses: a message that fails (bad body, unknown task, database or SQS error)
is reported and retried; after the queue's maxReceiveCount it lands in the DLQ, and the rest
of the batch goes on. Duplicates are harmless: only a queued task is dispatched.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from pydantic import BaseModel, ConfigDict

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger


class DispatchMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    task_id: UUID


def record_handler(record: SQSRecord) -> str:
    message = DispatchMessage.model_validate_json(record.body)
    result = get_container().task_dispatcher.dispatch(str(message.task_id))
    get_logger().debug("dispatch message handled", extra={"task_id": str(message.task_id),
                                                         "outcome": result.outcome.value})
    return result.outcome.value


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    processor = BatchProcessor(event_type=EventType.SQS)
    response = process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                        context=context)
    return dict(response)
