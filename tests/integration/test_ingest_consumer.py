"""With an LLM configured, extraction is queued on `ingest` and done by its SQS consumer,
with the real openai SDK talking to the fake OpenAI server and the queue on moto."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.bootstrap import Container, set_container
from chalicelib.kernel.queue_table import QUEUES
from infra.local.lambda_runtime import LocalLambdaContext, sqs_event
from infra.local.sqs_dispatcher import deliver_batch
from tests.conftest import RunningApi
from tests.fakes.fake_openai import CHAT_PATH, FakeOpenAI
from tests.integration.test_learning_loop_api import SESSION_1, call
from tests.support.local_stack import make_container, settings_for_test

INGEST = next(spec for spec in QUEUES if spec.key == "ingest")
ANSWER = {"significance": 0.8, "insights": [
    {"category": "decision", "content": "Search stays in Postgres with pgvector", "lines": [5]}],
    "rules": [{"rule": "Always use yarn, not npm", "confidence": 0.9, "lines": [1]}]}


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def llm_container(tmp_path: Path, database_url: str, moto_endpoint: str, fake: FakeOpenAI,
                  budget_usd: float = 1.0) -> Container:
    settings = settings_for_test(tmp_path / "home", database_url, moto_endpoint).replace(
        openai_api_key="sk-test", openai_base_url=fake.base_url, llm_daily_budget_usd=budget_usd)
    return make_container(settings)


@pytest.fixture
def llm_api(tmp_path: Path, database_url: str, moto_endpoint: str, fake: FakeOpenAI) -> Iterator[RunningApi]:
    from app import app as chalice_app
    from infra.local.api_server import ApiServer

    container = llm_container(tmp_path, database_url, moto_endpoint, fake)
    set_container(container)
    server = ApiServer(chalice_app, port=0, max_body_bytes=container.settings.max_body_bytes)
    server.start()
    yield RunningApi(server.url, container.settings.api_keys[0], container)
    server.stop()
    set_container(None)
    container.close()


def extraction_body(session_id: str = "s1") -> dict[str, Any]:
    return {"session_id": session_id, "project": "web", "conversation_text": SESSION_1,
            "files_changed": ["package.json"]}


def test_the_request_is_queued_and_the_consumer_stores_the_llm_extraction(
        llm_api: RunningApi, fake: FakeOpenAI) -> None:
    fake.script_chat(json.dumps(ANSWER))

    status, queued = call(llm_api, "POST", "/api/session/extract-insights", extraction_body())
    assert (status, queued["queued"], queued["extractor"]) == (202, True, "llm")
    assert deliver_batch(llm_api.container.queues, INGEST, wait_s=2) == 1

    rules = call(llm_api, "GET", "/api/project/learnings", project="web")[1]["rules"]
    assert [(r["rule"], r["confidence"]) for r in rules] == [("Always use yarn, not npm", 0.9)]
    status, replay = call(llm_api, "POST", "/api/session/extract-insights", extraction_body())
    assert (status, replay["replayed"], replay["extractor"], replay["rlm_promoted"]) == (200, True, "llm", 1)
    (request,) = fake.requests_to(CHAT_PATH)
    assert request["response_format"]["json_schema"]["name"] == "extract_insights"
    usage = call(llm_api, "GET", "/api/usage")[1]
    assert [(d["purpose"], d["calls"]) for d in usage["days"]] == [("extract_insights", 1)]
    assert usage["today"]["spent_usd"] > 0


def test_malformed_llm_json_falls_back_to_the_heuristic_extractor(
        llm_api: RunningApi, fake: FakeOpenAI) -> None:
    fake.script_chat('{"significance": 0.8, "insights": [')

    call(llm_api, "POST", "/api/session/extract-insights", extraction_body())
    deliver_batch(llm_api.container.queues, INGEST, wait_s=2)

    status, replay = call(llm_api, "POST", "/api/session/extract-insights", extraction_body())
    assert (status, replay["extractor"], replay["rules_stored"]) == (200, "heuristic", 1)


def test_a_redelivered_message_is_processed_once_and_never_calls_the_llm_again(
        tmp_path: Path, database_url: str, moto_endpoint: str, fake: FakeOpenAI) -> None:
    from functions.ingest_consumer import handler
    from infra.local.lambda_runtime import LocalLambdaContext as Context

    container = llm_container(tmp_path, database_url, moto_endpoint, fake)
    set_container(container)
    fake.script_chat(json.dumps(ANSWER))
    message = {"kind": "extract_insights", "session": {**extraction_body(), "summary": None,
                                                       "duration_ms": None}}
    event = sqs_event([_received("m1", message)], "arn:aws:sqs:local:0:ingest", "local")
    try:
        assert handler(event, Context("ingest")) == {"batchItemFailures": []}
        assert handler(event, Context("ingest")) == {"batchItemFailures": []}
    finally:
        set_container(None)
        container.close()
    assert len(fake.requests_to(CHAT_PATH)) == 1


def test_over_budget_the_consumer_uses_the_heuristic_and_records_the_skip(
        tmp_path: Path, database_url: str, moto_endpoint: str, fake: FakeOpenAI) -> None:
    from functions.ingest_consumer import handler

    container = llm_container(tmp_path, database_url, moto_endpoint, fake, budget_usd=0.0)
    set_container(container)
    message = {"kind": "extract_insights", "session": extraction_body()}
    try:
        handler(sqs_event([_received("m1", message)], "arn:aws:sqs:local:0:ingest", "local"),
                LocalLambdaContext("ingest"))
        result = container.insight_extraction.stored("s1")
        with container.llm_units() as uow:
            usage = uow.usage.by_day_and_purpose(1)
    finally:
        set_container(None)
        container.close()
    assert result is not None and result["extractor"] == "heuristic"
    assert fake.requests_to(CHAT_PATH) == []
    assert [(u["purpose"], u["calls"], u["skipped"]) for u in usage] == [("extract_insights", 0, 1)]


def test_a_message_of_an_unknown_kind_fails_alone(tmp_path: Path, database_url: str, moto_endpoint: str,
                                                  fake: FakeOpenAI) -> None:
    from functions.ingest_consumer import handler

    container = llm_container(tmp_path, database_url, moto_endpoint, fake)
    set_container(container)
    fake.script_chat(json.dumps(ANSWER))
    good = _received("good", {"kind": "extract_insights", "session": extraction_body()})
    poison = _received("poison", {"kind": "mystery"})
    try:
        answer = handler(sqs_event([poison, good], "arn:aws:sqs:local:0:ingest", "local"),
                         LocalLambdaContext("ingest"))
        stored = container.insight_extraction.stored("s1")
    finally:
        set_container(None)
        container.close()
    assert answer == {"batchItemFailures": [{"itemIdentifier": "poison"}]}
    assert stored is not None


def _received(message_id: str, body: dict[str, Any]) -> Any:
    from chalicelib.kernel.queues import ReceivedMessage

    return ReceivedMessage(message_id, f"rh-{message_id}", json.dumps(body), 1)
