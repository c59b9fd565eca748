"""Text Postgres cannot hold and numbers past a column's range are answered at the edge.

Typed fields refuse a NUL with a 400 naming the field; captured text (engine output, results,
transcripts) has its NULs removed, so a run's output is always stored and its result never lost.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chalicelib.bootstrap import Container
from chalicelib.contracts.api_transport import ApiClient, ApiError
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, drain_dispatch, heartbeat, new_task


@pytest.fixture
def client(api: RunningApi) -> Iterator[ApiClient]:
    yield client_for(api.url, api.key)


def _refused(call: object) -> ApiError:
    with pytest.raises(ApiError) as caught:
        call()  # type: ignore[operator]
    return caught.value


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/api/memory", {"project": "p", "content": "a\x00b"}, "content"),
    ("/api/memory", {"project": "p", "content": "ok", "metadata": {"k": ["x\x00"]}}, "metadata.k.0"),
    ("/api/tasks", {"project": "p", "description": "fix\x00it"}, "description"),
    ("/api/tasks", {"project": "p", "description": "d", "telegram_chat_id": 2**63}, "telegram_chat_id"),
    ("/api/tasks", {"project": "p", "description": "d", "cost_budget_usd": 1e8}, "cost_budget_usd"),
    ("/api/session/edit", {"session_id": "s", "project": "p", "file": "a.py", "lines_added": 2**31},
     "lines_added"),
    ("/api/machines/heartbeat", {"machine_id": "m", "agent_instance": "i", "active_tasks": 2**31},
     "active_tasks"),
])
def test_a_value_the_database_cannot_hold_is_a_400_naming_the_field(
        client: ApiClient, path: str, body: dict[str, object], field: str) -> None:
    error = _refused(lambda: client.post(path, body))
    assert error.status == 400
    assert error.body["field"] == field


def test_a_nul_in_a_query_parameter_is_a_400_and_in_a_path_an_unknown_id(client: ApiClient) -> None:
    assert _refused(lambda: client.get("/api/memory/search", query="a\x00", project="p")).status == 400
    assert _refused(lambda: client.get("/api/sessions/a%00b")).status in (400, 404)


def test_engine_output_with_nul_characters_is_stored_and_the_result_accepted(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1")
    task = new_task(client)
    drain_dispatch(container)
    claim = client.post(f"/api/tasks/{task['id']}/claim",
                        {"machine_id": "m1", "dispatch_seq": 1, "agent_instance": "i-1"})
    base = {"machine_id": "m1", "attempt": claim["attempt"]}

    client.post(f"/api/tasks/{task['id']}/events", {**base, "events": [
        {"kind": "text", "text": "binary\x00output", "data": {"raw\x00key": "v\x00"}}]})
    done = client.post(f"/api/tasks/{task['id']}/result", {
        **base, "status": "completed", "summary": "done\x00", "error": None, "files_changed": ["a\x00.py"]})

    assert done["status"] == "completed"
    events = client.get(f"/api/tasks/{task['id']}/events")["events"]
    text = next(e for e in events if e["kind"] == "text")
    assert (text["text"], text["data"]) == ("binaryoutput", {"rawkey": "v"})
