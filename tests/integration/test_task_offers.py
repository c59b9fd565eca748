"""Queued tasks reach their machine: a task names only a registered machine, the re-offer is fair
per machine (no backlog for other machines delays an idle machine's own task), and an agent
that comes back gets its work at its first heartbeat, not at the next scheduled pass."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from chalicelib.bootstrap import Container
from chalicelib.contracts.api_transport import ApiClient, ApiError
from chalicelib.tasks.domain.task_model import NewTask
from tests.conftest import RunningApi
from tests.integration.mcp.mcp_clients import connect, text
from tests.support.orchestration import client_for, drain_dispatch, heartbeat, machine_messages, new_task

BACKLOG = 340


@pytest.fixture
def client(api: RunningApi) -> Iterator[ApiClient]:
    yield client_for(api.url, api.key)


def _refused(client: ApiClient, machine: str) -> ApiError:
    with pytest.raises(ApiError) as refused:
        new_task(client, machine=machine)
    return refused.value


def _stored_queued(container: Container, *targets: str | None) -> list[str]:
    """Queued tasks written by the repository alone: no dispatch message was ever sent (a lost
    send), and their machine need not exist (rows stored before machines were checked)."""
    with container.task_deps.uow() as uow:
        ids = [uow.tasks.insert(str(uuid.uuid4()), NewTask("proj", "old work", target_machine=t))[0].id
               for t in targets]
        uow.commit()
    return ids


def _drain_all(container: Container) -> None:
    while drain_dispatch(container):
        pass


def test_a_task_for_a_machine_that_is_not_registered_is_refused_at_creation(
        client: ApiClient, api: RunningApi, tmp_path: Path) -> None:
    bad_name = _refused(client, "../B")
    unknown = _refused(client, "ghost")

    assert (bad_name.status, bad_name.body["field"]) == (400, "machine")
    assert (unknown.status, unknown.body["field"]) == (404, "machine")
    assert "no machine 'ghost' is registered" in unknown.body["message"]
    assert client.get("/api/tasks")["tasks"] == []

    async def through_mcp() -> str:
        async with connect("http", api, tmp_path, "proj") as mcp:
            created = await mcp.call_tool("task_create", {"description": "d", "machine": "../B"})
            assert created.is_error
            return text(created)

    assert "machine" in anyio.run(through_mcp)
    assert client.get("/api/tasks")["tasks"] == []


def test_a_task_for_a_registered_machine_that_is_offline_waits_for_it(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1", status="offline")
    task = new_task(client, machine="m1")
    drain_dispatch(container)
    assert client.get(f"/api/tasks/{task['id']}")["status"] == "queued"


def test_the_scheduled_re_offer_reaches_an_idle_machines_task_behind_a_backlog_for_other_machines(
        client: ApiClient, container: Container) -> None:
    _stored_queued(container, *[f"ghost-{n % 17}" if n % 5 else "../B" for n in range(BACKLOG)])
    heartbeat(client, "m1")
    (mine,) = _stored_queued(container, "m1")

    report = container.task_sweeper.sweep()
    _drain_all(container)

    shown = client.get(f"/api/tasks/{mine}")
    assert (shown["status"], shown["machine_id"]) == ("dispatched", "m1")
    assert report.offered == 1  # tasks no online machine can take are not offered over and over


def test_a_task_with_no_machine_is_re_offered_behind_a_backlog_for_machines_that_are_offline(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "away", status="offline")
    _stored_queued(container, *["away"] * 60)
    heartbeat(client, "m1")
    (anywhere,) = _stored_queued(container, None)

    container.task_sweeper.sweep()
    _drain_all(container)

    assert client.get(f"/api/tasks/{anywhere}")["machine_id"] == "m1"


def test_a_returning_agent_gets_its_queued_task_at_its_first_heartbeat(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "m2", status="offline")
    for _ in range(60):
        new_task(client, "m2's backlog", machine="m2")
    heartbeat(client, "m1", instance="i-1")
    heartbeat(client, "m1", instance="i-1", status="offline")
    task = new_task(client, "m1's work", machine="m1")
    _drain_all(container)
    assert client.get(f"/api/tasks/{task['id']}")["status"] == "queued"

    heartbeat(client, "m1", instance="i-2")
    _drain_all(container)

    shown = client.get(f"/api/tasks/{task['id']}")
    assert (shown["status"], shown["machine_id"]) == ("dispatched", "m1")
    assert [m["task_id"] for m in machine_messages(container, "m1")] == [task["id"]]


def test_a_task_the_dead_agent_had_received_is_sent_again_when_its_new_process_registers(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1", instance="i-1")
    task = new_task(client, machine="m1")
    drain_dispatch(container)
    held = container.queues.receive("machine-m1", max_messages=10, wait_s=0)  # then the agent died
    assert len(held) == 1

    heartbeat(client, "m1", instance="i-2")
    _drain_all(container)

    shown = client.get(f"/api/tasks/{task['id']}")
    assert (shown["status"], shown["dispatch_seq"]) == ("dispatched", 2)
    assert machine_messages(container, "m1") == [{"kind": "task", "task_id": task["id"], "dispatch_seq": 2}]
