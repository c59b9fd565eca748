"""The Lambda entry point of every table handler (queue consumers and schedules).

The template sets `Handler: functions.lambda_entry.handler` and `ITACHI_HANDLER=module:function`
(a row of the queue or schedule table in chalicelib/kernel/). The target is imported during the
Lambda init phase, and every invocation logs as Powertools JSON with the Lambda context and a correlation id:
the EventBridge event id for a schedule, the invocation's request id for an SQS batch (whose
message ids are logged too). Handlers stay unaware of it; the local stack calls them directly.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

from chalicelib.kernel.logging import get_logger

Handler = Callable[[dict[str, Any], Any], Any]


def load(dotted: str) -> Handler:
    """Import "package.module:function"."""
    module_name, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module_name), attr)  # type: ignore[no-any-return]


def correlation_id(event: dict[str, Any], context: Any) -> str:
    if event.get("source") == "aws.events" and event.get("id"):
        return str(event["id"])
    return str(getattr(context, "aws_request_id", "-"))


_TARGET_NAME = os.environ.get("ITACHI_HANDLER", "")
_target: Handler | None = load(_TARGET_NAME) if _TARGET_NAME else None


def handler(event: dict[str, Any], context: Any) -> Any:
    if _target is None:
        raise RuntimeError("ITACHI_HANDLER is not set for this function")
    logger = get_logger()
    return logger.inject_lambda_context(_invoke, clear_state=True)(event, context)


def _invoke(event: dict[str, Any], context: Any) -> Any:
    logger = get_logger()
    logger.set_correlation_id(correlation_id(event, context))
    records = event.get("Records") or []
    if records:
        logger.append_keys(message_ids=[r.get("messageId") for r in records])
    assert _target is not None
    return _target(event, context)
