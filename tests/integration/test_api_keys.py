"""Scoped API keys over HTTP, on real Postgres: machine keys act for their machine only, read-only
keys cannot write, a revoked key is refused, and only hashes are stored."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from chalicelib.auth.domain.api_keys import key_hash
from chalicelib.contracts.api_transport import ApiClient, ApiError
from chalicelib.contracts.local_home import ClientConfig
from tests.conftest import RunningApi
from tests.support.orchestration import drain_dispatch, heartbeat, new_task

KeyMaker = Callable[..., tuple[dict[str, Any], ApiClient]]


def client_for(url: str, key: str) -> ApiClient:
    """A patient client: the first memory write of a test process loads the local embedding model."""
    return ApiClient(ClientConfig(Path("/nonexistent"), url, key), timeout_s=180)


@pytest.fixture
def admin(api: RunningApi) -> ApiClient:
    return client_for(api.url, api.key)


@pytest.fixture
def make_key(api: RunningApi, admin: ApiClient) -> KeyMaker:
    def make(name: str, kind: str, **scope: Any) -> tuple[dict[str, Any], ApiClient]:
        created = admin.post("/api/keys", {"name": name, "kind": kind, **scope})
        return created, client_for(api.url, created["key"])

    return make


def _status(call: Callable[[], Any]) -> int:
    with pytest.raises(ApiError) as refused:
        call()
    return refused.value.status


def _dispatched_task(admin: ApiClient, api: RunningApi, machine: str) -> dict[str, Any]:
    heartbeat(admin, machine)
    task = new_task(admin, machine=machine)
    drain_dispatch(api.container)
    return admin.get(f"/api/tasks/{task['id']}")  # type: ignore[no-any-return]


def test_a_machine_key_cannot_claim_lease_or_report_for_another_machine(
        api: RunningApi, admin: ApiClient, make_key: KeyMaker) -> None:
    _, m1 = make_key("m1-agent", "machine", machine_id="m1")
    _, m2 = make_key("m2-agent", "machine", machine_id="m2")
    task = _dispatched_task(admin, api, "m1")
    claim = {"machine_id": "m1", "dispatch_seq": task["dispatch_seq"], "agent_instance": "i-m1"}

    assert _status(lambda: m2.post(f"/api/tasks/{task['id']}/claim", claim)) == 403
    beat = {"machine_id": "m1", "agent_instance": "x"}
    assert _status(lambda: m2.post("/api/machines/heartbeat", beat)) == 403

    claimed = m1.post(f"/api/tasks/{task['id']}/claim", claim)
    attempt = {"machine_id": "m1", "attempt": claimed["attempt"]}
    assert _status(lambda: m2.post(f"/api/tasks/{task['id']}/lease", attempt)) == 403
    assert _status(lambda: m2.post(f"/api/tasks/{task['id']}/events", {**attempt, "events": []})) == 403
    result = {**attempt, "status": "completed"}
    assert _status(lambda: m2.post(f"/api/tasks/{task['id']}/result", result)) == 403
    assert _status(lambda: m2.post(f"/api/tasks/{task['id']}/outcome",
                                   {"attempt": claimed["attempt"], "outcome": "success"})) == 403

    assert m1.post(f"/api/tasks/{task['id']}/lease", attempt)["keep_running"] is True
    done = m1.post(f"/api/tasks/{task['id']}/result", {**attempt, "status": "completed", "summary": "ok"})
    assert (done["status"], done["machine_id"]) == ("completed", "m1")


def test_a_machine_key_cannot_do_what_only_an_admin_may(make_key: KeyMaker) -> None:
    _, m1 = make_key("m1-agent", "machine", machine_id="m1")
    assert _status(lambda: m1.post("/api/keys", {"name": "mine", "kind": "admin"})) == 403
    assert _status(lambda: m1.get("/api/usage")) == 403
    assert m1.post("/api/memory", {"project": "p", "content": "machines remember too"})["id"]


def test_a_read_only_key_reads_but_cannot_write(admin: ApiClient, make_key: KeyMaker) -> None:
    admin.post("/api/memory", {"project": "p", "content": "the deploy runs on Fridays"})
    _, reader = make_key("reader", "client", read_only=True)

    assert reader.get("/api/memory/recent", project="p")["results"]
    assert _status(lambda: reader.post("/api/memory", {"project": "p", "content": "overwrite"})) == 403
    assert _status(lambda: reader.post("/api/tasks", {"project": "p", "description": "x"})) == 403
    assert _status(lambda: reader.post("/api/session/event", {
        "session_id": "s", "project": "p", "kind": "stop"})) == 403
    assert [m["content"] for m in admin.get("/api/memory/recent", project="p")["results"]] == [
        "the deploy runs on Fridays"]


def test_a_client_key_limited_to_projects_works_in_those_only(admin: ApiClient, make_key: KeyMaker) -> None:
    other = admin.post("/api/memory", {"project": "secret", "content": "the other team's plan"})
    _, client = make_key("hooks-p", "client", projects=["p"])

    assert client.post("/api/memory", {"project": "p", "content": "ours"})["id"]
    assert _status(lambda: client.post("/api/memory", {"project": "secret", "content": "x"})) == 403
    assert _status(lambda: client.get("/api/memory/search", query="plan", project="secret")) == 403
    assert _status(lambda: client.get("/api/memory/recent")) == 403  # names no project
    assert _status(lambda: client.get(f"/api/memory/{other['id']}")) == 403
    assert _status(lambda: client.delete(f"/api/memory/{other['id']}")) == 403
    assert _status(lambda: client.post("/api/tasks/00000000-0000-0000-0000-000000000000/claim", {
        "machine_id": "m1", "dispatch_seq": 1, "agent_instance": "i"})) == 403  # a client is no agent
    assert admin.get(f"/api/memory/{other['id']}")["content"] == "the other team's plan"


def test_a_revoked_key_is_refused(api: RunningApi, admin: ApiClient, make_key: KeyMaker) -> None:
    _, client = make_key("laptop-hooks", "client")
    assert client.get("/api/memory/recent", project="p") is not None

    revoked = admin.delete("/api/keys/laptop-hooks")
    assert revoked["revoked_at"] is not None
    api.container.authenticator._cache.clear()  # what the lookup cache's TTL does within 30 s

    assert _status(lambda: client.get("/api/memory/recent", project="p")) == 401
    assert [k["name"] for k in admin.get("/api/keys")["keys"]] == []
    assert [k["name"] for k in admin.get("/api/keys", include_revoked="true")["keys"]] == ["laptop-hooks"]
    again, _ = make_key("laptop-hooks", "client")  # the name is free again
    assert again["key"] != ""


def test_no_key_is_stored_in_plain_text(api: RunningApi, make_key: KeyMaker, database_url: str) -> None:
    scopes: list[tuple[str, dict[str, Any]]] = [
        ("admin", {}), ("machine", {"machine_id": "m1"}), ("client", {"read_only": True})]
    created = [make_key(f"k{i}", kind, **scope)[0] for i, (kind, scope) in enumerate(scopes)]

    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT * FROM api_keys").fetchall()
        dump = conn.execute("SELECT string_agg(t::text, '|') FROM api_keys t").fetchone()
        replies = conn.execute("SELECT count(*) FROM request_replies").fetchone()
    assert len(rows) == 3
    assert dump is not None and replies is not None
    for made in created:
        assert made["key"] not in dump[0] and made["key"][12:] not in dump[0]
        assert key_hash(made["key"]).hex() in dump[0]  # bytea shows as hex: only the digest is there
    assert replies[0] == 0


def test_a_key_is_shown_once_and_listed_by_its_prefix(admin: ApiClient, make_key: KeyMaker) -> None:
    created, _ = make_key("ci", "client", projects=["p", "q"])
    listed = admin.get("/api/keys")["keys"]
    shown = [(k["name"], k["prefix"], k["projects"]) for k in listed]
    assert shown == [("ci", created["key"][:12], ["p", "q"])]
    assert "key" not in listed[0]
    assert _status(lambda: admin.post("/api/keys", {"name": "ci", "kind": "client"})) == 409
    assert _status(lambda: admin.post("/api/keys", {"name": "m", "kind": "machine"})) == 400


def test_answers_holding_a_secret_are_never_kept_for_replay(api: RunningApi, database_url: str) -> None:
    from chalicelib.contracts.api_transport import request_json

    replayable = {"Idempotency-Key": "once"}
    for path, body in (("/api/keys", {"name": "k", "kind": "client"}), ("/api/machines/invites", {}),
                       ("/api/machines/join", {"token": "iti_x"})):
        with pytest.raises(ApiError) as refused:
            request_json(api.url, api.key, "POST", path, body, timeout_s=30, headers=replayable)
        assert refused.value.status == 400 and "Idempotency-Key" in refused.value.message
    with psycopg.connect(database_url) as conn:
        counts = conn.execute("SELECT (SELECT count(*) FROM request_replies),"
                              " (SELECT count(*) FROM api_keys),"
                              " (SELECT count(*) FROM machine_invites)").fetchone()
    assert counts == (0, 0, 0)


def test_an_idempotency_key_is_recorded_per_caller_and_never_replays_another_keys_answer(
        api: RunningApi, admin: ApiClient, make_key: KeyMaker) -> None:
    from chalicelib.contracts.api_transport import request_json

    alice, _ = make_key("alice", "client", projects=["p"])
    bob, _ = make_key("bob", "client", projects=["p"])
    same = {"Idempotency-Key": "retry-1"}

    def post(key: str, content: str) -> Any:
        return request_json(api.url, key, "POST", "/api/memory", {"project": "p", "content": content},
                            timeout_s=180, headers=same)

    first = post(alice["key"], "alice's note about the deploy window")
    replay = post(alice["key"], "alice's note about the deploy window")
    other = post(bob["key"], "bob's note about the release train")

    assert replay == first  # the same caller's retry: the first answer
    assert other["id"] != first["id"]  # another caller's request with the same header is its own
    assert admin.get(f"/api/memory/{other['id']}")["content"] == "bob's note about the release train"
