"""Subagent profiles, runs, messages and the lifecycle worker over the API, real Postgres and SQS;
the machine's side is played by hand (heartbeat, claim, result), as an agent would."""

from __future__ import annotations

import time
from typing import Any

import pytest

from chalicelib.agents.services.lifecycle import SubagentLifecycle
from chalicelib.agents.services.ports import NullReporter
from chalicelib.bootstrap import Container
from chalicelib.contracts.api_transport import ApiClient, ApiError
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, drain_dispatch, heartbeat, machine_messages

PROFILE = {
    "name": "release-checker",
    "system_prompt": "You check release notes for breaking changes.",
    "description": "Reads changelogs",
    "engine": "claude",
    "model": "claude-sonnet-4-5",
    "permission_mode": "plan",
    "allowed_tools": ["Read", "WebFetch"],
    "time_budget_s": 600,
    "cost_budget_usd": 1.5,
    "memory_projects": ["deps"],
    "memory_categories": ["fact"],
}


@pytest.fixture
def client(api: RunningApi) -> ApiClient:
    return client_for(api.url, api.key)


def claimed(client: ApiClient, container: Container, run: dict[str, Any]) -> dict[str, Any]:
    """Dispatch the run's task to machine m1 and claim it there, as the agent would."""
    heartbeat(client, "m1")
    drain_dispatch(container)
    task = client.get(f"/api/agents/runs/{run['id']}")
    (message,) = [m for m in machine_messages(container, "m1") if m.get("task_id") == task["task_id"]]
    claim = client.post(
        f"/api/tasks/{task['task_id']}/claim",
        {"machine_id": "m1", "dispatch_seq": message["dispatch_seq"], "agent_instance": "i-m1"},
    )
    return claim  # type: ignore[no-any-return]


def test_a_user_profile_is_added_listed_shown_and_removed_and_builtins_are_protected(
    client: ApiClient,
) -> None:
    saved = client.post("/api/agents/profiles", PROFILE)
    names = [p["name"] for p in client.get("/api/agents/profiles")["profiles"]]
    shown = client.get("/api/agents/profiles/release-checker")
    with pytest.raises(ApiError) as builtin:
        client.post("/api/agents/profiles", {**PROFILE, "name": "code-reviewer"})
    with pytest.raises(ApiError) as bad_mode:
        client.post("/api/agents/profiles", {**PROFILE, "permission_mode": "yolo"})
    client.delete("/api/agents/profiles/release-checker")
    with pytest.raises(ApiError) as gone:
        client.get("/api/agents/profiles/release-checker")

    assert saved["allowed_tools"] == ["Read", "WebFetch"] and saved["cost_budget_usd"] == 1.5
    assert names[:3] == ["code-reviewer", "researcher", "devops"] and "release-checker" in names
    assert shown["system_prompt"] == PROFILE["system_prompt"] and shown["lessons"] == []
    assert (builtin.value.status, gone.value.status) == (409, 404)
    assert bad_mode.value.status == 400 and "permission_mode" in bad_mode.value.message


def test_a_run_carries_its_profile_to_the_claim_and_messages_sent_before_it_started(
    client: ApiClient, container: Container
) -> None:
    client.post("/api/agents/profiles", PROFILE)
    run = client.post(
        "/api/agents/runs", {"profile": "release-checker", "prompt": "Check pydantic 3.0", "project": "deps"}
    )
    sent = client.post(f"/api/agents/runs/{run['id']}/messages", {"body": "Also look at pydantic-core"})

    claim = claimed(client, container, run)

    assert sent["delivery"] == "waiting" and run["time_budget_s"] == 600 and run["cost_budget_usd"] == 1.5
    options = claim["task"]["engine_options"]
    assert options["system_prompt"] == PROFILE["system_prompt"] and options["permission_mode"] == "plan"
    assert options["model"] == "claude-sonnet-4-5" and options["allowed_tools"] == ["Read", "WebFetch"]
    assert options["interactive"] is True and options["memory_scope"]["projects"] == ["deps"]
    assert claim["task"]["max_attempts"] == 1 and claim["task"]["time_budget_s"] == 600
    assert (
        "Check pydantic 3.0" in claim["prompt"] and "from user: Also look at pydantic-core" in claim["prompt"]
    )
    messages = client.get(f"/api/agents/runs/{run['id']}/messages")["messages"]
    assert [(m["seq"], m["status"]) for m in messages] == [(1, "delivered")]
    active = client.get("/api/agents/runs", status="active")["runs"]
    assert [r["id"] for r in active] == [run["id"]]


def test_the_lifecycle_worker_stops_a_run_past_its_budget_and_reports_it_finished(
    client: ApiClient, container: Container
) -> None:
    run = client.post(
        "/api/agents/runs", {"profile": "devops", "prompt": "Rotate the certificates", "time_budget_s": 1}
    )
    claim = claimed(client, container, run)
    worker = SubagentLifecycle(
        container.agents_units,
        container.tasks,
        container.agent_runs,
        container.agent_messaging,
        container.profile_lessons,
        NullReporter(),
        grace_s=0,
    )
    machine_messages(container, "m1")  # drain

    time.sleep(1.5)  # past the 1 s budget (the worker's grace is 0 here)
    first = worker.sweep()

    task = client.get(f"/api/tasks/{claim['task']['id']}")
    assert first.stopped == [run["id"]] and task["cancel_requested"] is True
    assert {"kind": "cancel", "task_id": task["id"]} in machine_messages(container, "m1")
    client.post(
        f"/api/tasks/{task['id']}/result",
        {"machine_id": "m1", "attempt": claim["attempt"], "status": "cancelled", "summary": "killed"},
    )
    second = worker.sweep()
    done = client.get(f"/api/agents/runs/{run['id']}")
    assert second.finished == [run["id"]] and done["status"] == "timed_out"
    assert done["stop_reason"] == "time budget of 1s exceeded" and done["finished_at"]
    lessons = client.get("/api/agents/profiles/devops")["lessons"]
    assert any(
        "Rotate the certificates" in lesson["content"] and "exceeded" in lesson["content"]
        for lesson in lessons
    )
    assert worker.sweep().finished == []  # finished once


def test_a_message_to_a_finished_run_starts_a_follow_up_run_and_feedback_moves_its_lessons(
    client: ApiClient, container: Container
) -> None:
    run = client.post(
        "/api/agents/runs", {"profile": "researcher", "prompt": "Summarise the httpx changelog"}
    )
    claim = claimed(client, container, run)
    client.post(
        f"/api/tasks/{claim['task']['id']}/result",
        {"machine_id": "m1", "attempt": claim["attempt"], "status": "completed", "summary": "No breaks."},
    )
    container.agent_lifecycle.sweep()

    sent = client.post(f"/api/agents/runs/{run['id']}/messages", {"body": "What about 0.28?"})
    follow = client.get(f"/api/agents/runs/{sent['run_id']}")
    rated = client.post(
        f"/api/agents/runs/{run['id']}/feedback", {"good": False, "note": "Always read the migration guide"}
    )
    with pytest.raises(ApiError) as twice:
        client.post(f"/api/agents/runs/{run['id']}/feedback", {"good": True})

    assert sent["delivery"] == "follow_up" and follow["parent_run_id"] == run["id"]
    assert follow["origin"] == "message" and "What about 0.28?" in follow["prompt"]
    assert "No breaks." in follow["prompt"]
    assert rated["lessons"] == [] and twice.value.status == 409
    lessons = {lesson["kind"]: lesson for lesson in client.get("/api/agents/profiles/researcher")["lessons"]}
    assert lessons["feedback"]["content"] == "Always read the migration guide"
    assert lessons["feedback"]["confidence"] == pytest.approx(0.95)
    assert "completed: No breaks." in lessons["outcome"]["content"]
