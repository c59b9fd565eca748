"""The Lambda entry of table handlers: imports ITACHI_HANDLER once and logs with a correlation id."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest

CALLS: list[dict[str, Any]] = []


def echo(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """A stand-in table handler: notes what its log lines would carry."""
    from chalicelib.kernel.logging import get_logger

    logger = get_logger()
    CALLS.append({"correlation_id": logger.get_correlation_id(), **logger.get_current_keys()})
    return {"batchItemFailures": []}


@dataclass
class Context:
    function_name: str = "itachi-prod-cleanup-schedule"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:itachi-prod-cleanup-schedule"
    aws_request_id: str = "req-1"


def entry_for(monkeypatch: pytest.MonkeyPatch, target: str) -> ModuleType:
    monkeypatch.setenv("ITACHI_HANDLER", target)
    import functions.lambda_entry as entry

    return importlib.reload(entry)


def test_a_scheduled_run_logs_the_eventbridge_event_id_as_correlation_id(
        monkeypatch: pytest.MonkeyPatch) -> None:
    entry = entry_for(monkeypatch, f"{__name__}:echo")
    event = {"source": "aws.events", "id": "evt-42", "detail-type": "Scheduled Event"}
    assert entry.handler(event, Context()) == {"batchItemFailures": []}
    line = CALLS[-1]
    assert line["correlation_id"] == "evt-42"
    assert line["function_name"] == "itachi-prod-cleanup-schedule"
    assert "cold_start" in line


def test_an_sqs_batch_logs_its_message_ids_under_the_request_id(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = entry_for(monkeypatch, f"{__name__}:echo")
    entry.handler({"Records": [{"messageId": "m1"}, {"messageId": "m2"}]}, Context())
    line = CALLS[-1]
    assert line["correlation_id"] == "req-1"
    assert line["message_ids"] == ["m1", "m2"]


def test_a_function_without_a_target_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = entry_for(monkeypatch, "")
    with pytest.raises(RuntimeError, match="ITACHI_HANDLER"):
        entry.handler({}, Context())
