"""Interactive sessions over HTTP: the user side, the agent side, and the machine queue between."""

from __future__ import annotations

import pytest

from chalicelib.bootstrap import Container
from chalicelib.contracts.api_transport import ApiClient, ApiError
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, heartbeat, machine_messages


@pytest.fixture
def client(api: RunningApi) -> ApiClient:
    return client_for(api.url, api.key)


def test_a_session_is_started_fed_and_closed_through_the_machine_queue(
        client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1")
    session = client.post("/api/sessions", {"prompt": "show git status", "project": "p", "machine": "m1"})
    sid = session["id"]
    claimed = client.post(f"/api/sessions/{sid}/claim", {"machine_id": "m1"})
    seq = client.post(f"/api/sessions/{sid}/input", {"text": "and the log"})["seq"]
    client.post(f"/api/sessions/{sid}/events",
                {"machine_id": "m1", "events": [{"kind": "text", "text": "ok"}]})
    closing = client.post(f"/api/sessions/{sid}/close")
    ended = client.post(f"/api/sessions/{sid}/ended", {"machine_id": "m1", "exit_code": 0})

    assert session["status"] == "starting"
    assert claimed["inputs"] == [{"seq": 1, "text": "show git status"}]
    assert seq == 2
    assert closing["status"] == "closing"
    assert (ended["status"], ended["exit_code"]) == ("closed", 0)
    assert machine_messages(container, "m1") == [
        {"kind": "session_start", "session_id": sid},
        {"kind": "session_input", "session_id": sid, "seq": 2, "text": "and the log"},
        {"kind": "session_close", "session_id": sid},
    ]
    kinds = [e["kind"] for e in client.get(f"/api/sessions/{sid}/events")["events"]]
    assert kinds == ["user_input", "started", "user_input", "text", "close_requested", "closed"]


def test_a_session_on_an_unknown_machine_is_refused(client: ApiClient) -> None:
    with pytest.raises(ApiError) as err:
        client.post("/api/sessions", {"prompt": "hi", "project": "p", "machine": "nowhere"})
    assert err.value.status == 503


def test_input_to_a_closed_session_is_refused(client: ApiClient) -> None:
    heartbeat(client, "m1")
    sid = client.post("/api/sessions", {"prompt": "hi", "project": "p", "machine": "m1"})["id"]
    client.post(f"/api/sessions/{sid}/claim", {"machine_id": "m1"})
    client.post(f"/api/sessions/{sid}/ended", {"machine_id": "m1", "exit_code": 0})

    with pytest.raises(ApiError) as err:
        client.post(f"/api/sessions/{sid}/input", {"text": "more"})
    assert err.value.status == 409


def test_a_plan_mode_session_reaches_its_machine_on_claude_and_is_refused_on_another_engine_or_mode(
        client: ApiClient) -> None:
    heartbeat(client, "m1")
    session = client.post("/api/sessions", {"prompt": "plan it", "project": "p", "machine": "m1",
                                            "permission_mode": "plan"})
    claimed = client.post(f"/api/sessions/{session['id']}/claim", {"machine_id": "m1"})

    assert claimed["session"]["permission_mode"] == "plan"
    for engine, mode in (("codex", "plan"), ("claude", "acceptEdits")):
        with pytest.raises(ApiError) as err:
            client.post("/api/sessions", {"prompt": "plan it", "project": "p", "machine": "m1",
                                          "engine": engine, "permission_mode": mode})
        assert err.value.status == 400 and "plan" in err.value.message
