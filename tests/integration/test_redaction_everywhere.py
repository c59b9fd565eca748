"""Every kind of secret the redactor claims, sent through every route that stores captured text,
is found nowhere in the database afterwards, nor in the logs.

The routes are the ones hooks, the agent and users feed with text they did not write for
Itachi: memories (single, code change, markdown index), session events, edits and
transcripts, insight extraction (insights, rules, lessons), taught rules, and an agent's task
and session events and results. The scan reads every table, so a new table that stores text
unredacted shows up here too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.bootstrap import Container, set_container
from chalicelib.contracts.api_transport import ApiClient
from tests.fakes.memory_embedders import WordHashEmbedder
from tests.support.local_stack import make_container, settings_for_test
from tests.support.orchestration import client_for, drain_dispatch, heartbeat, new_task
from tests.support.secret_samples import ALL_IN_ONE, SAMPLES, SECRETS, leaks

ONE_LINE = " ".join(s.text.replace("\n", " ") for s in SAMPLES)


@pytest.fixture
def served(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[tuple[ApiClient, Container]]:
    from app import app as chalice_app
    from infra.local.api_server import ApiServer

    container = make_container(settings_for_test(tmp_path / "home", database_url, moto_endpoint))
    container.embedder = WordHashEmbedder()  # fast and offline; what it is sent is checked too
    set_container(container)
    server = ApiServer(chalice_app, port=0, max_body_bytes=container.settings.max_body_bytes)
    server.start()
    try:
        yield client_for(server.url, container.settings.api_keys[0]), container
    finally:
        server.stop()
        set_container(None)
        container.close()


def _memory_routes(client: ApiClient) -> None:
    client.post("/api/memory", {"project": "sec", "category": "fact", "content": ALL_IN_ONE,
                                "summary": ONE_LINE, "files": [s.text for s in SAMPLES],
                                "metadata": {"note": ALL_IN_ONE, "nested": [{"header": ONE_LINE}]}})
    client.post("/api/memory/code-change", {"project": "sec", "file": "settings.py",
                                            "summary": ONE_LINE, "diff": f"+{ALL_IN_ONE}"})
    client.post("/api/memory/index", {"project": "sec", "path": "docs/keys.md",
                                      "text": f"# Keys\n\n{ALL_IN_ONE}\n"})


def _session_routes(client: ApiClient) -> None:
    client.post("/api/session/event", {"session_id": "s1", "project": "sec", "event": "stop",
                                       "data": {"last_assistant_message": ALL_IN_ONE}})
    client.post("/api/session/edit", {"session_id": "s1", "project": "sec", "file": "config.py",
                                      "diff": ALL_IN_ONE})
    client.post("/api/session/complete", {
        "session_id": "s1", "project": "sec", "summary": ONE_LINE, "files_changed": ["config.py"],
        "transcript": [{"role": "user", "text": ALL_IN_ONE, "line": 1},
                       {"role": "assistant", "text": ALL_IN_ONE, "line": 2}]})


def _learning_routes(client: ApiClient) -> None:
    conversation = "\n\n".join(f"User: Always keep {s.text.replace(chr(10), ' ')} out of the repo."
                               f"\n\nAssistant: We decided to rotate {s.text} weekly." for s in SAMPLES)
    client.post("/api/session/extract-insights", {
        "session_id": "s2", "project": "sec", "conversation_text": conversation,
        "files_changed": ["a.py", "b.py", "c.py"], "summary": ONE_LINE, "duration_ms": 1_800_000})
    for sample in SAMPLES:
        client.post("/api/project/rules", {"project": "sec", "rule": f"Never paste {sample.text}"})


def _agent_routes(client: ApiClient, container: Container) -> None:
    heartbeat(client, "m1")
    task = new_task(client, "rotate the keys", project="sec")
    drain_dispatch(container)
    client.post(f"/api/tasks/{task['id']}/claim", {"machine_id": "m1", "dispatch_seq": 1,
                                                   "agent_instance": "i-m1"})
    client.post(f"/api/tasks/{task['id']}/events", {"machine_id": "m1", "attempt": 1, "events": [
        {"kind": "text", "text": ALL_IN_ONE, "data": {"output": ALL_IN_ONE}}]})
    client.post(f"/api/tasks/{task['id']}/result", {
        "machine_id": "m1", "attempt": 1, "status": "failed", "summary": ALL_IN_ONE, "error": ALL_IN_ONE,
        "files_changed": [], "exit_code": 1})
    session = client.post("/api/sessions", {"prompt": "look around", "project": "sec", "machine": "m1"})
    session_id = session.get("id") or session["session"]["id"]
    client.post(f"/api/sessions/{session_id}/claim", {"machine_id": "m1"})
    client.post(f"/api/sessions/{session_id}/events", {"machine_id": "m1", "events": [
        {"kind": "text", "text": ALL_IN_ONE, "data": {"output": ALL_IN_ONE}}]})


def test_planted_secrets_of_every_kind_are_stored_nowhere_and_logged_nowhere(
        served: tuple[ApiClient, Container], database_url: str, capfd: pytest.CaptureFixture[str]) -> None:
    client, container = served
    _memory_routes(client)
    _session_routes(client)
    _learning_routes(client)
    _agent_routes(client, container)

    assert leaks(database_url) == {}
    embedded = "\n".join(text for batch in container.embedder.calls for text in batch)  # type: ignore[attr-defined]
    assert [s for s in SECRETS if s in embedded] == []
    logs = "".join(capfd.readouterr())
    assert [s for s in SECRETS if s in logs] == []
    kinds = {s.kind for s in SAMPLES}
    with container.db.connection() as conn:
        stored = "\n".join(r["m"] for r in conn.execute("SELECT m::text AS m FROM memories m").fetchall())
    assert {k for k in kinds if f"[REDACTED:{k}]" in stored} == kinds
