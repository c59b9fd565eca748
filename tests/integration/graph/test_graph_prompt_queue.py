"""The prompt the hook's search (`graph=true`) queues for the graph's store pipeline: sent once the
response is written (by the local server; in Lambda before the answer), held back past the hook's
deadline so the pipeline never runs beside the request, stored exactly once, and stored inline when
the queue cannot be reached. Real Postgres, the ingest queue on moto, the API over HTTP."""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from chalicelib.bootstrap import Container
from chalicelib.graph.services import graph_store
from chalicelib.kernel.queue_table import QUEUES
from infra.local.processes import free_port
from infra.local.sqs_dispatcher import deliver_batch
from tests.conftest import RunningApi
from tests.integration.memory.conftest import serving
from tests.integration.test_learning_loop_api import call
from tests.support.local_stack import make_container, settings_for_test

INGEST = next(spec for spec in QUEUES if spec.key == "ingest")
PROJECT = "billing"
PROMPT = "Rohan now leads the Zephyr migration project."


def hook_search(api: RunningApi, prompt: str = PROMPT) -> dict[str, object]:
    status, answer = call(api, "GET", "/api/memory/search", project=PROJECT, project_limit=3,
                          global_limit=2, mode="hybrid", graph="true", query=prompt)
    assert status == 200, answer
    assert "graph" in answer
    return dict(answer)


def ingest_counts(container: Container) -> dict[str, int]:
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed",
             "ApproximateNumberOfMessagesNotVisible"]
    attrs = container.queues.client.get_queue_attributes(
        QueueUrl=container.queues.url("ingest"), AttributeNames=names)["Attributes"]
    return {name.removeprefix("ApproximateNumberOfMessages") or "visible": int(attrs[name]) for name in names}


def store_runs(container: Container) -> int:
    with container.db.connection() as conn:
        row = conn.execute("SELECT count(*) AS n FROM graph_traces WHERE project = %s AND kind = 'store'",
                           (PROJECT,)).fetchone()
    assert row is not None
    return int(row["n"])


def entity_names(api: RunningApi) -> set[str]:
    return {e["content"] for e in call(api, "GET", "/api/graph/entities", project=PROJECT)[1]["entities"]}


def eventually(probe: Callable[[], bool], what: str, deadline_s: float = 60) -> None:
    deadline = time.monotonic() + deadline_s
    while not probe():
        assert time.monotonic() < deadline, f"{what}: not within {deadline_s:.0f} s"
        time.sleep(0.1)


def test_the_prompt_waits_in_the_queue_until_after_the_hooks_request_has_answered(
    api: RunningApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(graph_store, "PROMPT_DELAY_S", 60)  # a margin no loaded box can eat
    hook_search(api)
    eventually(lambda: ingest_counts(api.container)["Delayed"] == 1, "the prompt queued")
    assert ingest_counts(api.container) == {"visible": 0, "Delayed": 1, "NotVisible": 0}
    assert deliver_batch(api.container.queues, INGEST, wait_s=1) == 0
    assert store_runs(api.container) == 0


def test_without_a_server_to_send_it_afterwards_the_prompt_is_queued_before_the_answer(
    container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in Lambda: the app invoked directly, nothing runs after it returns."""
    from chalice.test import Client

    from app import app as chalice_app

    monkeypatch.setattr(graph_store, "PROMPT_DELAY_S", 60)
    query = urllib.parse.urlencode({"project": PROJECT, "project_limit": 3, "global_limit": 2,
                                    "mode": "hybrid", "graph": "true", "query": PROMPT})
    with Client(chalice_app) as client:
        answer = client.http.get(f"/api/memory/search?{query}",
                                 headers={"Authorization": f"Bearer {container.settings.api_keys[0]}"})
    assert answer.status_code == 200, answer.body
    assert ingest_counts(container) == {"visible": 0, "Delayed": 1, "NotVisible": 0}


def test_the_prompt_reaches_the_store_pipeline_exactly_once_after_its_delay(api: RunningApi) -> None:
    hook_search(api)
    deadline, delivered = time.monotonic() + 60, 0
    while not delivered and time.monotonic() < deadline:
        delivered = deliver_batch(api.container.queues, INGEST, wait_s=5)
    assert delivered == 1
    assert "Rohan" in entity_names(api)
    assert deliver_batch(api.container.queues, INGEST, wait_s=2) == 0
    assert ingest_counts(api.container) == {"visible": 0, "Delayed": 0, "NotVisible": 0}
    assert store_runs(api.container) == 1


@pytest.fixture
def api_without_queue(tmp_path: Path, database_url: str) -> Iterator[RunningApi]:
    """The API whose SQS endpoint is a closed port: every send fails."""
    container = make_container(settings_for_test(tmp_path / "home", database_url,
                                                 f"http://127.0.0.1:{free_port()}"), with_queues=False)
    try:
        with serving(container) as api:
            yield api
    finally:
        container.close()


def test_a_prompt_the_queue_refuses_is_stored_inline_and_the_search_still_answers(
    api_without_queue: RunningApi,
) -> None:
    hook_search(api_without_queue)
    eventually(lambda: store_runs(api_without_queue.container) == 1, "the prompt stored inline")
    assert "Rohan" in entity_names(api_without_queue)
