"""SQS consumer of the `ingest` queue: slow ingestion work, one message per item.

Three kinds: `graph_store` (a prompt or a session's summary for the graph memory's store
pipeline, idempotent per project and text), `extract_insights` (a session's transcript, queued
by the extract-insights route when an LLM is configured) and `evict_memories` (a project over
its memory budget at SessionEnd; the run is keyed by the session, so a redelivery resumes it).
Each record succeeds or fails alone (partial batch response); a failing record is retried by
SQS and lands in the DLQ after `max_receive_count`. A redelivered record is harmless:
extraction is idempotent per session id, the graph store per project and text.
"""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger
from chalicelib.learning.services.insight_extraction import SessionTranscript


class UnknownMessage(ValueError):
    """A message this consumer cannot handle: it fails, and SQS moves it to the DLQ in the end."""


def record_handler(record: SQSRecord) -> None:
    body = json.loads(record.body)
    kind = body.get("kind") if isinstance(body, dict) else None
    if kind == "evict_memories":
        from functions.memory_eviction import run_queued

        get_logger().info("ingest: memory eviction", extra=run_queued(body))
        return
    if kind == "graph_store":
        result = get_container().graph_store.run(body)
        get_logger().info("ingest: graph store", extra={"project": body.get("project"),
                                                        "replayed": result.get("replayed"),
                                                        "pipeline": result.get("pipeline")})
        return
    if kind != "extract_insights":
        raise UnknownMessage(f"unknown ingest message kind {kind!r}")
    transcript = SessionTranscript.from_message(body)
    result = get_container().insight_extraction.run(transcript)
    get_logger().info("ingest: insights extracted", extra={
        "session_id": transcript.session_id, "replayed": result.get("replayed"),
        "extractor": result.get("extractor")})


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    processor = BatchProcessor(event_type=EventType.SQS)
    return dict(process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                         context=context))
