"""Tasks teach the learning loop without any hook session: a finished task's description, result
and error go through the sessions' extraction, its significant insights become lessons, and
later tasks' outcomes move those lessons by +0.10 / -0.15. Real API over HTTP, real Postgres,
SQS on moto; the LLM path with the real openai SDK against the fake OpenAI server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.bootstrap import Container
from chalicelib.contracts.api_transport import ApiClient
from chalicelib.contracts.local_home import ClientConfig
from infra.local.sqs_dispatcher import deliver_batch
from tests.conftest import RunningApi
from tests.fakes.fake_openai import CHAT_PATH, FakeOpenAI
from tests.integration.test_ingest_consumer import INGEST, fake, llm_api  # noqa: F401  # fixtures
from tests.support.orchestration import drain_dispatch, heartbeat, new_task

PROJECT = "proj"
ASKED = "Fix the flaky login test. From now on, always run the migrations before the tests."
ANSWERED = ("Fixed the flaky login test: the root cause was a stale schema left in the test database. "
            "We decided to reset the schema once per session in a fixture instead of per test. "
            "I prefer fixtures that fail loudly over silent retries.")


def patient_client(api: RunningApi) -> ApiClient:
    """The agent's client, with room for a loaded box: an outcome's extraction embeds inline."""
    api.container.embedder.embed(["warm the model as itachi up does"])
    return ApiClient(ClientConfig(home=Path("/nonexistent"), api_url=api.url, api_key=api.key),
                     timeout_s=300)


@pytest.fixture
def client(api: RunningApi) -> Iterator[ApiClient]:
    yield patient_client(api)


def run_task(client: ApiClient, container: Container, description: str, *, status: str = "completed",
             summary: str = "", error: str | None = None, files: tuple[str, ...] = (),
             outcome: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Create, dispatch, claim and finish one task as the agent does; return it and its claim."""
    heartbeat(client, "m1")
    task = new_task(client, description=description)
    drain_dispatch(container)
    claim = client.post(f"/api/tasks/{task['id']}/claim",
                        {"machine_id": "m1", "dispatch_seq": 1, "agent_instance": "i-m1"})
    client.post(f"/api/tasks/{task['id']}/result", {
        "machine_id": "m1", "attempt": 1, "status": status, "summary": summary, "error": error,
        "files_changed": list(files), "exit_code": 0 if status == "completed" else 1})
    verdict = outcome or {"completed": "success", "cancelled": "cancelled"}.get(status, "failure")
    assert client.post(f"/api/tasks/{task['id']}/outcome", {
        "attempt": 1, "outcome": verdict, "summary": summary or error or "", "files_changed": list(files),
        "duration_s": 95.0}) == {"recorded": True}
    return task, claim


def rows(container: Container, sql: str, *params: Any) -> list[dict[str, Any]]:
    with container.db.connection() as conn:
        return list(conn.execute(sql, params).fetchall())


def test_a_finished_task_yields_a_rule_and_lessons_that_later_task_outcomes_move(
        client: ApiClient, container: Container) -> None:
    task, _ = run_task(client, container, ASKED, summary=ANSWERED,
                       files=("tests/conftest.py", "tests/test_login.py", "db/schema.sql"))

    key = f"task:{task['id']}#1"
    (extraction,) = rows(container, "SELECT extractor, significance, result FROM session_extractions "
                                    "WHERE session_id = %s", key)
    assert extraction["extractor"] == "heuristic" and extraction["significance"] >= 0.7
    rules = client.get("/api/project/learnings", project=PROJECT)["rules"]
    assert [(r["rule"], r["source"]) for r in rules] == [
        ("Always run the migrations before the tests", "task")]
    stored = rows(container, "SELECT category, metadata->>'source' AS source, confidence FROM memories "
                             "WHERE session_id = %s ORDER BY category", key)
    by_source = {(r["category"], r["source"]) for r in stored}
    assert {("decision", "task_insight"), ("learning", "task_insight"), ("preference", "task_insight"),
            ("project_rule", "task"), ("task_lesson", "task")} == by_source
    assert {r["confidence"] for r in stored if r["category"] == "task_lesson"} == {0.7}

    # A later task on the same ground carries the lesson; its success and a failure move it.
    lesson = client.get("/api/lessons", project=PROJECT,
                        context="reset the test database schema once per session in a fixture")["lessons"][0]
    assert lesson["confidence"] == 0.7 and "reset the schema once per session" in lesson["content"]
    _, claim = run_task(client, container, "Speed up the login tests: reset the test database schema "
                                           "once per session in a fixture", summary="Done.")
    assert lesson["content"] in claim["prompt"]
    assert client.get(f"/api/lessons/{lesson['id']}")["confidence"] == 0.8
    run_task(client, container, "Make the signup tests reset the test database schema once per session "
                                "in a fixture", status="failed", error="the fixture deadlocked")
    assert client.get(f"/api/lessons/{lesson['id']}")["confidence"] == 0.65


def test_an_outcome_reported_again_extracts_nothing_more_and_a_cancelled_one_teaches_nothing(
        client: ApiClient, container: Container) -> None:
    task, _ = run_task(client, container, ASKED, summary=ANSWERED, files=("a.py",))
    before = rows(container, "SELECT count(*) AS n FROM memories")[0]["n"]

    again = client.post(f"/api/tasks/{task['id']}/outcome", {"attempt": 1, "outcome": "success",
                                                             "summary": ANSWERED})
    cancelled, _ = run_task(client, container, "Always use yarn, not npm, for the release job",
                            status="cancelled", summary="stopped by the user")

    assert again == {"recorded": False}
    assert rows(container, "SELECT count(*) AS n FROM memories")[0]["n"] == before
    assert rows(container, "SELECT 1 FROM session_extractions WHERE session_id = %s",
                f"task:{cancelled['id']}#1") == []


def test_a_failed_tasks_error_is_read_as_a_hypothesis_never_as_a_fact(
        client: ApiClient, container: Container) -> None:
    found = "Migration 0042 failed: turns out the ORM upgrade needs Postgres 15 for MERGE."
    task, _ = run_task(client, container, "Upgrade the ORM", status="failed", error=found)

    learned = rows(container, "SELECT category, content, metadata->>'kind' AS kind FROM memories"
                              " WHERE session_id = %s", f"task:{task['id']}#1")
    assert [(r["category"], r["content"], r["kind"]) for r in learned] == [("hypothesis", found, "learning")]
    searched = client.get("/api/memory/search", query="ORM upgrade Postgres 15 MERGE", project=PROJECT)
    assert found not in [hit["content"] for hit in searched["results"]]  # never injected as a fact
    asked = client.get("/api/memory/search", query="ORM upgrade Postgres 15 MERGE", project=PROJECT,
                       category="hypothesis")
    assert [hit["content"] for hit in asked["results"]] == [found]


def test_with_an_llm_a_failed_task_is_queued_on_ingest_and_the_models_findings_are_hypotheses(
        llm_api: RunningApi, fake: FakeOpenAI) -> None:  # noqa: F811  # fixtures
    container, client = llm_api.container, patient_client(llm_api)
    fake.script_chat(json.dumps({"significance": 0.85, "insights": [
        {"category": "learning", "content": "The ORM upgrade needs Postgres 15 for MERGE", "lines": [3]}],
        "rules": [{"rule": "Check the Postgres version before upgrading the ORM", "confidence": 0.7,
                   "lines": [3]}]}))

    task, _ = run_task(client, container, "Upgrade the ORM to 3.0", status="failed",
                       summary="I moved the upserts to MERGE statements.",
                       error="migration 0042: MERGE is not supported before Postgres 15")
    assert deliver_batch(container.queues, INGEST, wait_s=2) == 1

    (request,) = fake.requests_to(CHAT_PATH)
    prompt = request["messages"][-1]["content"]
    assert "Upgrade the ORM to 3.0" in prompt and "The task failed: migration 0042" in prompt
    stored = rows(container, "SELECT category, content, metadata->>'kind' AS kind FROM memories "
                             "WHERE session_id = %s ORDER BY content", f"task:{task['id']}#1")
    assert stored == [  # a failed attempt yields hypotheses: no lesson, no rule, no fact
        {"category": "hypothesis", "content": "Check the Postgres version before upgrading the ORM",
         "kind": "rule"},
        {"category": "hypothesis", "content": "The ORM upgrade needs Postgres 15 for MERGE",
         "kind": "learning"}]
    assert client.get("/api/project/learnings", project=PROJECT)["rules"] == []
