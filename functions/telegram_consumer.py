"""SQS consumer of `telegram-updates`: run the bot's handlers for each update, once per update_id.

Powertools batch processing with partial failures: a record that cannot be parsed or recorded
is retried and, after the queue's max receives, lands in its DLQ. A failing handler is not a
failed record: the bot's error handler has already told the user. Each record's logs carry
its update id as `correlation_id`.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from pydantic import BaseModel, ConfigDict

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import correlation_id, log_failure


class UpdateMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    update: dict[str, Any]


def record_handler(record: SQSRecord) -> bool:
    try:
        update = UpdateMessage.model_validate_json(record.body).update
        with correlation_id(f"update:{int(update['update_id'])}"):
            return get_container().telegram_updates.run(update)
    except Exception as exc:
        log_failure("telegram update not processed", exc, message_id=record.message_id)
        raise


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    return dict(process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                         context=context))
