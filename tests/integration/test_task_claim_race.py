"""Two agents claiming one task at the same moment (a duplicated SQS delivery reaching an old and
a restarted agent): over real HTTP and the real database, exactly one of them gets it."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from chalicelib.bootstrap import Container
from chalicelib.contracts.api_transport import ApiClient, ApiError
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, drain_dispatch, heartbeat, new_task

TASKS = 10


@pytest.fixture
def client(api: RunningApi) -> Iterator[ApiClient]:
    yield client_for(api.url, api.key)


def test_of_two_agents_claiming_a_task_at_once_exactly_one_gets_it(
        api: RunningApi, client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1", max_concurrent=TASKS)
    tasks = [new_task(client, f"task {i}") for i in range(TASKS)]
    drain_dispatch(container)
    assert {client.get(f"/api/tasks/{t['id']}")["status"] for t in tasks} == {"dispatched"}
    outcomes: dict[str, list[int | str]] = {t["id"]: [] for t in tasks}
    lock = threading.Lock()

    def claim(task_id: str, instance: str, start: threading.Barrier) -> None:
        agent = client_for(api.url, api.key)  # each agent has its own connection
        start.wait()
        try:
            body = agent.post(f"/api/tasks/{task_id}/claim", {"machine_id": "m1", "dispatch_seq": 1,
                                                              "agent_instance": instance})
            result: int | str = f"attempt {body['attempt']}"
        except ApiError as exc:
            result = exc.status
        with lock:
            outcomes[task_id].append(result)

    for task in tasks:
        start = threading.Barrier(2)
        pair = [threading.Thread(target=claim, args=(task["id"], instance, start))
                for instance in ("i-old", "i-new")]
        for thread in pair:
            thread.start()
        for thread in pair:
            thread.join(60)

    for task in tasks:
        assert sorted(outcomes[task["id"]], key=str) == [409, "attempt 1"]
        shown = client.get(f"/api/tasks/{task['id']}")
        assert (shown["status"], shown["attempts"]) == ("running", 1)
        kinds = [e["kind"] for e in client.get(f"/api/tasks/{task['id']}/events")["events"]]
        assert kinds.count("started") == 1
