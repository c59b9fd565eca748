"""Invites name their machine, and a join never takes over a machine that still has a live key:
over HTTP with real Postgres, as the joining machine calls it (no API key, the token in the body)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from chalicelib.contracts.api_transport import ApiClient, ApiError, request_json
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, heartbeat


@pytest.fixture
def admin(api: RunningApi) -> ApiClient:
    return client_for(api.url, api.key)


def _status(call: Callable[[], Any]) -> tuple[int, str]:
    try:
        call()
    except ApiError as exc:
        return exc.status, exc.message
    return 201, ""


def _join(api: RunningApi, token: str, machine_id: str | None = None) -> dict[str, Any]:
    body = {"token": token, **({"machine_id": machine_id} if machine_id else {})}
    return request_json(api.url, "", "POST", "/api/machines/join", body, timeout_s=30)  # type: ignore[no-any-return]


def _invite(admin: ApiClient, machine_id: str) -> str:
    return admin.post("/api/machines/invites", {"machine_id": machine_id})["token"]  # type: ignore[no-any-return]


def _live_keys(admin: ApiClient, machine_id: str) -> list[str]:
    return [k["name"] for k in admin.get("/api/keys")["keys"] if k["machine_id"] == machine_id]


def test_an_invite_that_names_no_machine_is_refused(admin: ApiClient) -> None:
    status, message = _status(lambda: admin.post("/api/machines/invites", {}))

    assert status == 400 and "machine_id" in message
    assert admin.get("/api/keys")["keys"] == []


def test_a_live_machine_cannot_be_taken_with_an_invite_for_another(api: RunningApi, admin: ApiClient) -> None:
    victim = admin.post("/api/keys", {"name": "victim-agent", "kind": "machine", "machine_id": "victim"})
    heartbeat(client_for(api.url, victim["key"]), "victim")
    token = _invite(admin, "newbox")

    status, message = _status(lambda: _join(api, token, "victim"))

    assert status == 403 and "this invite is for machine 'newbox', not 'victim'" in message
    assert _live_keys(admin, "victim") == ["victim-agent"]
    assert _join(api, token)["machine_id"] == "newbox"  # the refused join did not spend the token


def test_a_join_for_a_machine_that_has_a_live_key_is_refused_until_that_key_is_revoked(
        api: RunningApi, admin: ApiClient) -> None:
    token = _invite(admin, "box")
    admin.post("/api/keys", {"name": "box-agent", "kind": "machine", "machine_id": "box"})

    status, message = _status(lambda: _join(api, token))
    assert status == 409 and "machine 'box' already has a live key (box-agent)" in message
    assert "revoke" in message

    admin.delete("/api/keys/box-agent")
    joined = _join(api, token)
    assert joined["machine_id"] == "box" and _live_keys(admin, "box") == [joined["key_name"]]


def test_an_invite_for_a_machine_that_has_a_live_key_is_refused(admin: ApiClient) -> None:
    admin.post("/api/keys", {"name": "busy-agent", "kind": "machine", "machine_id": "busy"})

    status, message = _status(lambda: _invite(admin, "busy"))

    assert status == 409 and "already has a live key (busy-agent)" in message


def test_two_invites_for_one_machine_joined_at_once_give_it_one_key(
        api: RunningApi, admin: ApiClient) -> None:
    tokens = [_invite(admin, "twin"), _invite(admin, "twin")]
    statuses: list[int] = []
    joins = [threading.Thread(target=lambda t=t: statuses.append(_status(lambda: _join(api, t))[0]))
             for t in tokens]
    for join in joins:
        join.start()
    for join in joins:
        join.join(timeout=60)

    assert sorted(statuses) == [201, 409]
    assert len(_live_keys(admin, "twin")) == 1
