"""Tasks over HTTP with real Postgres and SQS (moto): create, dispatch, claim, report, cancel."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from chalicelib.bootstrap import Container
from chalicelib.contracts.api_transport import ApiClient, ApiError
from chalicelib.tasks.services.task_policy import TaskPolicy
from tests.conftest import RunningApi
from tests.support.orchestration import (
    client_for,
    drain_dispatch,
    heartbeat,
    machine_messages,
    new_task,
    offline_machine,
)


@pytest.fixture
def client(api: RunningApi) -> Iterator[ApiClient]:
    yield client_for(api.url, api.key)


def _claim(client: ApiClient, task_id: str, machine: str, seq: int = 1, instance: str | None = None) -> dict:
    return client.post(f"/api/tasks/{task_id}/claim", {  # type: ignore[no-any-return]
        "machine_id": machine, "dispatch_seq": seq, "agent_instance": instance or f"i-{machine}"})


def test_a_task_goes_to_the_online_machine_that_has_its_repo(client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1", repos=["/src/other"])
    heartbeat(client, "m2", repos=["/src/app"])
    task = new_task(client, repo="/src/app")
    assert task["status"] == "queued"

    drain_dispatch(container)

    shown = client.get(f"/api/tasks/{task['id']}")
    assert (shown["status"], shown["machine_id"], shown["dispatch_seq"]) == ("dispatched", "m2", 1)
    assert machine_messages(container, "m2") == [{"kind": "task", "task_id": task["id"], "dispatch_seq": 1}]
    assert machine_messages(container, "m1") == []


def test_a_task_with_no_machine_waits_queued_and_goes_out_when_one_sends_a_heartbeat(
        client: ApiClient, container: Container) -> None:
    offline_machine(client, "late")
    task = new_task(client, machine="late")
    drain_dispatch(container)
    assert client.get(f"/api/tasks/{task['id']}")["status"] == "queued"

    heartbeat(client, "late")
    drain_dispatch(container)

    assert client.get(f"/api/tasks/{task['id']}")["status"] == "dispatched"
    assert [m["kind"] for m in machine_messages(container, "late")] == ["task"]


def test_registration_creates_the_machine_queue_and_tells_the_agent_where_it_is(
        client: ApiClient, container: Container) -> None:
    reg = heartbeat(client, "m1")
    assert reg["queue_url"].endswith(container.queues.name("machine-m1"))
    assert reg["sqs_endpoint_url"] == container.settings.sqs_endpoint_url
    assert container.queues.url("machine-m1-dlq")
    assert [m["id"] for m in client.get("/api/machines")["machines"]] == ["m1"]


def test_a_duplicated_task_message_is_claimed_once(client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1")
    task = new_task(client)
    drain_dispatch(container)

    first = _claim(client, task["id"], "m1")
    with pytest.raises(ApiError) as second:
        _claim(client, task["id"], "m1")

    assert first["attempt"] == 1
    assert second.value.status == 409
    assert client.get(f"/api/tasks/{task['id']}")["attempts"] == 1


def test_a_duplicated_dispatch_message_dispatches_once(client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1")
    task = new_task(client)
    container.task_queues.send_dispatch(task["id"])

    drain_dispatch(container)

    assert len(machine_messages(container, "m1")) == 1
    assert client.get(f"/api/tasks/{task['id']}")["dispatch_seq"] == 1


def test_progress_events_are_numbered_and_can_be_followed_with_a_cursor(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1")
    task = new_task(client)
    drain_dispatch(container)
    _claim(client, task["id"], "m1")
    client.post(f"/api/tasks/{task['id']}/events", {"machine_id": "m1", "attempt": 1, "events": [
        {"kind": "text", "text": "looking"}, {"kind": "tool_use", "text": "Write", "data": {"file": "a"}}]})

    page = client.get(f"/api/tasks/{task['id']}/events")
    later = client.get(f"/api/tasks/{task['id']}/events", after=page["events"][-2]["seq"])

    assert [e["kind"] for e in page["events"]] == ["created", "dispatched", "started", "text", "tool_use"]
    assert [e["seq"] for e in page["events"]] == [1, 2, 3, 4, 5]
    assert [e["kind"] for e in later["events"]] == ["tool_use"]
    assert page["status"] == "running"


def test_a_reported_result_completes_the_task_and_a_second_report_is_refused(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1")
    task = new_task(client)
    drain_dispatch(container)
    _claim(client, task["id"], "m1")
    result = {"machine_id": "m1", "attempt": 1, "status": "completed", "summary": "done",
              "files_changed": ["a.py"], "exit_code": 0, "cost_usd": 0.01, "branch": "itachi/task-x"}

    done = client.post(f"/api/tasks/{task['id']}/result", result)
    with pytest.raises(ApiError) as again:
        client.post(f"/api/tasks/{task['id']}/result", {**result, "status": "failed"})
    outcome = client.post(f"/api/tasks/{task['id']}/outcome", {"attempt": 1, "outcome": "success"})

    assert (done["status"], done["files_changed"], done["cost_usd"]) == ("completed", ["a.py"], 0.01)
    assert again.value.status == 409
    assert outcome == {"recorded": True}


def test_cancelling_a_finished_task_is_an_illegal_transition(client: ApiClient, container: Container) -> None:
    task = new_task(client)
    client.post(f"/api/tasks/{task['id']}/cancel")

    with pytest.raises(ApiError) as err:
        client.post(f"/api/tasks/{task['id']}/cancel")

    assert err.value.status == 409
    assert err.value.body["error"] == "illegal_transition"


def test_cancelling_a_running_task_asks_its_machine_to_stop_it(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1")
    task = new_task(client)
    drain_dispatch(container)
    _claim(client, task["id"], "m1")
    machine_messages(container, "m1")

    cancel = client.post(f"/api/tasks/{task['id']}/cancel")
    lease = client.post(f"/api/tasks/{task['id']}/lease", {"machine_id": "m1", "attempt": 1})

    assert (cancel["status"], cancel["cancel_requested"]) == ("running", True)
    assert machine_messages(container, "m1") == [{"kind": "cancel", "task_id": task["id"]}]
    assert lease["keep_running"] is False


def test_tasks_are_listed_by_status_and_project(client: ApiClient, container: Container) -> None:
    a = new_task(client, project="alpha")
    new_task(client, project="beta")
    client.post(f"/api/tasks/{a['id']}/cancel")

    assert [t["id"] for t in client.get("/api/tasks", project="alpha")["tasks"]] == [a["id"]]
    assert [t["project"] for t in client.get("/api/tasks", status="queued")["tasks"]] == ["beta"]
    with pytest.raises(ApiError) as bad:
        client.get("/api/tasks", status="sleeping")
    assert bad.value.status == 400


def test_a_task_is_found_by_a_short_prefix_of_its_id(client: ApiClient) -> None:
    task = new_task(client)
    assert client.get(f"/api/tasks/{task['id'][:8]}")["id"] == task["id"]


def test_the_same_idempotency_key_creates_one_task(client: ApiClient) -> None:
    first = new_task(client, idempotency_key="telegram-update-7")
    second = new_task(client, idempotency_key="telegram-update-7")
    assert first["id"] == second["id"]
    assert len(client.get("/api/tasks")["tasks"]) == 1


def test_the_engine_switch_guard_refuses_past_the_limit(client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1")
    task = new_task(client)
    drain_dispatch(container)
    _claim(client, task["id"], "m1")
    body = {"machine_id": "m1", "attempt": 1, "from_engine": "claude", "to_engine": "codex"}

    client.post(f"/api/tasks/{task['id']}/engine-switch", body)
    client.post(f"/api/tasks/{task['id']}/engine-switch",
                {**body, "from_engine": "codex", "to_engine": "gemini"})
    with pytest.raises(ApiError) as third:
        client.post(f"/api/tasks/{task['id']}/engine-switch", body)

    assert third.value.status == 409
    shown = client.get(f"/api/tasks/{task['id']}")
    assert (shown["engine_switches"], shown["current_engine"]) == (2, "gemini")


def test_a_machine_silent_past_the_offline_limit_is_offline_and_gets_no_task(
        client: ApiClient, container: Container) -> None:
    container.task_policy = TaskPolicy(offline_after_s=0.3)
    heartbeat(client, "m1")
    time.sleep(0.5)
    task = new_task(client)
    drain_dispatch(container)

    assert client.get("/api/machines")["machines"][0]["status"] == "offline"
    assert client.get(f"/api/tasks/{task['id']}")["status"] == "queued"


def test_the_prompt_carries_the_project_rules(client: ApiClient, container: Container) -> None:
    with container.db.connection() as conn:
        conn.execute("INSERT INTO memories (project, category, content, content_hash) VALUES"
                     " ('proj', 'project_rule', 'Always run the tests first.', 'h1'),"
                     " ('proj', 'fact', 'The sky is blue.', 'h2')")
    heartbeat(client, "m1")
    task = new_task(client, description="fix the login bug")
    drain_dispatch(container)

    claim = _claim(client, task["id"], "m1")

    assert claim["prompt"].startswith("fix the login bug")
    assert "Always run the tests first." in claim["prompt"]
    assert "sky" not in claim["prompt"]


def test_secrets_in_engine_output_are_redacted_before_they_are_stored(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1")
    task = new_task(client)
    drain_dispatch(container)
    _claim(client, task["id"], "m1")
    token = "ghp_" + "a" * 36
    client.post(f"/api/tasks/{task['id']}/events", {"machine_id": "m1", "attempt": 1, "events": [
        {"kind": "output", "text": f"pushing with {token}", "data": {"command": f"git push {token}"}}]})
    done = client.post(f"/api/tasks/{task['id']}/result", {"machine_id": "m1", "attempt": 1,
                                                           "status": "completed", "summary": f"used {token}"})

    stored = client.get(f"/api/tasks/{task['id']}/events")["events"][-2]
    assert token not in stored["text"] and token not in str(stored["data"])
    assert "[REDACTED" in stored["text"]
    assert token not in done["result_summary"]


def test_a_task_outcome_moves_the_confidence_of_the_lessons_its_prompt_carried(
        client: ApiClient, container: Container) -> None:
    from chalicelib.learning.domain.insights import Insight

    text = "Run the database migrations before fixing the login tests"
    (vector,) = container.embedder.embed([text])
    with container.learning_units() as uow:
        lesson_id = container.lessons.promote(uow, "proj", Insight("learning", text), "error-handling",
                                              vector, container.embedder.model, session_id="s1",
                                              significance=0.8)
        uow.commit()
    heartbeat(client, "m1")
    task = new_task(client, description="fix the login tests after the database migrations")
    drain_dispatch(container)
    claim = _claim(client, task["id"], "m1")
    assert text in claim["prompt"]
    client.post(f"/api/tasks/{task['id']}/result", {
        "machine_id": "m1", "attempt": 1, "status": "failed", "summary": "tests still fail",
        "files_changed": [], "exit_code": 1})
    client.post(f"/api/tasks/{task['id']}/outcome", {"attempt": 1, "outcome": "failure"})

    with container.db.connection() as conn:
        row = conn.execute("SELECT confidence FROM memories WHERE id = %s", (lesson_id,)).fetchone()
    assert row is not None and abs(row["confidence"] - 0.55) < 1e-6


@pytest.mark.parametrize("machine_id", ["m1-dlq", "m1-DLQ", "bad id", "x" * 41])
def test_a_machine_id_that_would_name_another_machines_dlq_or_no_queue_is_refused(
        client: ApiClient, machine_id: str) -> None:
    with pytest.raises(ApiError) as refused:
        heartbeat(client, machine_id)
    assert refused.value.status == 400 and "machine_id" in str(refused.value)
