"""Tasks whose agent vanished are retried or failed, never left running."""

from __future__ import annotations

import time

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
    wait_for,
)


@pytest.fixture
def client(api: RunningApi) -> ApiClient:
    return client_for(api.url, api.key)


def _run_until_claimed(client: ApiClient, container: Container, task: dict, machine: str = "m1") -> dict:
    drain_dispatch(container)
    seq = client.get(f"/api/tasks/{task['id']}")["dispatch_seq"]
    machine_messages(container, machine)
    return client.post(f"/api/tasks/{task['id']}/claim", {  # type: ignore[no-any-return]
        "machine_id": machine, "dispatch_seq": seq, "agent_instance": f"i-{machine}"})


def test_a_lost_lease_is_retried_and_then_failed_after_the_last_attempt(
        client: ApiClient, container: Container) -> None:
    container.task_policy = TaskPolicy(lease_s=0.2)
    heartbeat(client, "m1")
    task = new_task(client, max_attempts=2)
    _run_until_claimed(client, container, task)
    time.sleep(0.4)

    first = container.task_sweeper.sweep()
    after_first = client.get(f"/api/tasks/{task['id']}")
    second_claim = _run_until_claimed(client, container, task)
    time.sleep(0.4)
    container.task_sweeper.sweep()
    final = client.get(f"/api/tasks/{task['id']}")

    assert first.recovered == 1
    assert (after_first["status"], after_first["attempts"]) == ("queued", 1)
    assert second_claim["attempt"] == 2
    assert (final["status"], final["attempts"]) == ("failed", 2)
    kinds = [e["kind"] for e in client.get(f"/api/tasks/{task['id']}/events")["events"]]
    assert kinds.count("requeued") == 1 and kinds[-1] == "failed"


def test_a_late_result_from_the_agent_that_lost_the_task_is_refused(
        client: ApiClient, container: Container) -> None:
    container.task_policy = TaskPolicy(lease_s=0.2)
    heartbeat(client, "m1")
    task = new_task(client)
    _run_until_claimed(client, container, task)
    time.sleep(0.4)
    container.task_sweeper.sweep()

    with pytest.raises(ApiError) as late:
        client.post(f"/api/tasks/{task['id']}/result",
                    {"machine_id": "m1", "attempt": 1, "status": "completed"})
    lease = client.post(f"/api/tasks/{task['id']}/lease", {"machine_id": "m1", "attempt": 1})

    assert late.value.status == 409
    assert lease["keep_running"] is False


def test_a_new_agent_process_on_the_machine_recovers_the_tasks_of_the_old_one_at_once(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1", instance="old")
    task = new_task(client)
    drain_dispatch(container)
    client.post(f"/api/tasks/{task['id']}/claim", {"machine_id": "m1", "dispatch_seq": 1,
                                                   "agent_instance": "old"})

    reg = heartbeat(client, "m1", instance="new")

    assert reg["recovered_tasks"] == [task["id"]]
    shown = client.get(f"/api/tasks/{task['id']}")
    assert (shown["status"], shown["machine_id"]) == ("queued", None)


def test_a_cancel_requested_before_the_agent_vanished_ends_cancelled(
        client: ApiClient, container: Container) -> None:
    container.task_policy = TaskPolicy(lease_s=0.2)
    heartbeat(client, "m1")
    task = new_task(client)
    _run_until_claimed(client, container, task)
    client.post(f"/api/tasks/{task['id']}/cancel")
    time.sleep(0.4)

    container.task_sweeper.sweep()

    assert client.get(f"/api/tasks/{task['id']}")["status"] == "cancelled"


def test_a_task_over_its_time_budget_is_timed_out_by_the_sweep(
        client: ApiClient, container: Container) -> None:
    container.task_policy = TaskPolicy(overdue_grace_s=0)
    heartbeat(client, "m1")
    task = new_task(client, time_budget_s=10)
    _run_until_claimed(client, container, task)
    with container.db.connection() as conn:  # pretend it started eleven seconds ago
        conn.execute("UPDATE tasks SET started_at = now() - interval '11 seconds' WHERE id = %s",
                     (task["id"],))

    report = container.task_sweeper.sweep()

    assert report.timed_out == 1
    assert client.get(f"/api/tasks/{task['id']}")["status"] == "timed_out"


def test_a_dispatched_task_on_a_machine_gone_offline_goes_back_to_the_queue(
        client: ApiClient, container: Container) -> None:
    # Long enough for the dispatch to find m1 online on a busy machine; then m1 falls silent.
    container.task_policy = TaskPolicy(offline_after_s=5)
    heartbeat(client, "m1")
    task = new_task(client)
    drain_dispatch(container)
    assert client.get(f"/api/tasks/{task['id']}")["status"] == "dispatched"
    wait_for(lambda: client.get("/api/machines")["machines"][0]["status"] == "offline", timeout_s=30,
             every_s=0.5, what="m1 to be seen offline")

    report = container.task_sweeper.sweep()

    assert report.requeued_dispatched == 1
    assert client.get(f"/api/tasks/{task['id']}")["status"] == "queued"


def test_a_machine_at_capacity_hands_a_task_back_and_it_is_dispatched_again(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1")
    task = new_task(client)
    drain_dispatch(container)

    client.post(f"/api/tasks/{task['id']}/release", {"machine_id": "m1", "dispatch_seq": 1})
    drain_dispatch(container)

    shown = client.get(f"/api/tasks/{task['id']}")
    assert (shown["status"], shown["dispatch_seq"]) == ("dispatched", 2)
