"""Every kind of secret the redactor claims, sent through every route that stores text, is found
nowhere in the database afterwards, nor in the logs.

The routes are the ones hooks, the agent and users feed with text they did not write for
Itachi: memories (single, batch, code change, markdown index, import, imported rules), session
events, edits and transcripts, insight extraction (insights, rules, lessons), taught rules,
tasks and an agent's task and session events and results, subagent profiles, runs, messages and
cron jobs, tool approvals, synced paths, a machine's heartbeat, SSH targets, the graph, and the
replies kept for idempotent POSTs. Fields that take a name or a path get the secrets that are
recognisable on their own. The scan reads every text, json and array column of every table
(from `information_schema`), so a new table or column that stores text unredacted shows up here.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.bootstrap import Container, set_container
from chalicelib.contracts.api_transport import ApiClient, ApiError, request_json
from chalicelib.contracts.sync_envelope import content_hash
from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch
from tests.fakes.memory_embedders import WordHashEmbedder
from tests.support.local_stack import make_container, settings_for_test
from tests.support.orchestration import client_for, drain_dispatch, heartbeat, new_task
from tests.support.secret_samples import ALL_IN_ONE, ONE_LINE, SAMPLES, SECRETS, TOKENS, leaks
from tests.support.sync_contract import envelope

INGEST = next(q for q in QUEUES if q.key == "ingest")


@pytest.fixture
def served(tmp_path: Path, database_url: str,
           moto_endpoint: str) -> Iterator[tuple[ApiClient, Container, str]]:
    from app import app as chalice_app
    from infra.local.api_server import ApiServer

    container = make_container(settings_for_test(tmp_path / "home", database_url, moto_endpoint))
    container.embedder = WordHashEmbedder()  # fast and offline; what it is sent is checked too
    set_container(container)
    server = ApiServer(chalice_app, port=0, max_body_bytes=container.settings.max_body_bytes)
    server.start()
    try:
        yield client_for(server.url, container.settings.api_keys[0]), container, server.url
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


def _more_memory_routes(client: ApiClient) -> None:
    client.post("/api/memory/batch", {"memories": [
        {"project": "sec", "category": "fact", "content": s.text, "summary": s.text,
         "files": [s.text], "metadata": {"note": s.text}, "session_id": s.text[:200]} for s in SAMPLES]})
    client.post("/api/memory/import", {"records": [{
        "id": "5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b", "project": "sec", "category": "fact",
        "content": ALL_IN_ONE, "summary": ONE_LINE, "files": [s.text for s in SAMPLES],
        "metadata": {"note": ALL_IN_ONE}, "tags": [s.secret[:64] for s in TOKENS],
        "session_id": TOKENS[0].secret, "source_ids": [s.secret for s in TOKENS],
        "created_at": "2024-05-01T10:00:00+00:00", "last_reinforced_at": "2024-05-01T10:00:00+00:00",
        "content_hash": "ab" * 32,
        "archive": {"content": ALL_IN_ONE, "summary": ONE_LINE, "category": "fact",
                    "archived_at": "2024-05-02T10:00:00+00:00"}}], "embed": False})
    client.post("/api/memory/import-rules", {"project": "sec", "items": [
        {"category": "rule", "content": f"Never paste {s.text}", "path": f"rules/{t.secret}.md",
         "tool": "cursor"}
        for s, t in zip(SAMPLES, TOKENS * 3, strict=False)]})


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
    task = new_task(client, ALL_IN_ONE, project="sec")
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


def _subagent_routes(client: ApiClient) -> None:
    client.post("/api/agents/profiles", {"name": "keeper", "system_prompt": ALL_IN_ONE,
                                         "description": " ".join(s.secret for s in TOKENS)[:500]})
    client.post("/api/agents/cron", {"schedule": "0 3 * * *", "prompt": ALL_IN_ONE, "profile": "keeper",
                                     "project": "sec"})
    run = client.post("/api/agents/runs", {"profile": "keeper", "prompt": ALL_IN_ONE, "project": "sec"})
    run_id = run.get("id") or run["run"]["id"]
    client.post(f"/api/agents/runs/{run_id}/messages", {"body": ALL_IN_ONE, "sender": "user"})
    client.post(f"/api/agents/runs/{run_id}/notes", {"notes": ALL_IN_ONE[:4000]})


def _machine_routes(client: ApiClient, api_url: str, key: str) -> None:
    for i, sample in enumerate(SAMPLES):  # a heartbeat replaces the machine's row: one machine each
        heartbeat(client, f"h{i}", hostname=sample.text, repos=[s.text for s in SAMPLES],
                  projects=[s.secret for s in TOKENS], agent_version=TOKENS[i % len(TOKENS)].secret[:50])
    heartbeat(client, "m2")
    blob = envelope(64)
    for sample in TOKENS:  # the envelope authenticates the path: one holding a secret is refused whole
        with pytest.raises(ApiError) as refused:
            client.post("/api/sync/push", {"project": "sec", "machine_id": "m2", "files": [
                {"path": f"keys/{sample.secret}.md", "base_version": 0,
                 "ciphertext": base64.b64encode(blob).decode(), "content_hash": content_hash(blob)}]})
        assert refused.value.status == 400 and sample.secret not in str(refused.value)
    client.post("/api/ssh/targets", {"name": "box", "machine_id": "m2", "host": "box.local", "user": "ops",
                                     "key_path": f"~/.ssh/{TOKENS[0].secret}",
                                     "allowed_commands": [s.text for s in SAMPLES]})
    for i, sample in enumerate(SAMPLES):  # kept replies to idempotent POSTs echo what was sent
        request_json(api_url, key, "POST", "/api/approvals",
                     {"session_id": "s1", "project": "sec", "tool": "Bash", "summary": sample.text},
                     timeout_s=10, headers={"Idempotency-Key": f"approval-{i}"})


def _graph_routes(client: ApiClient, container: Container) -> None:
    client.post("/api/graph/ingest", {"project": "sec", "text": ALL_IN_ONE})
    while deliver_batch(container.queues, INGEST, wait_s=0):
        pass


def test_planted_secrets_of_every_kind_are_stored_nowhere_and_logged_nowhere(
        served: tuple[ApiClient, Container, str], database_url: str,
        capfd: pytest.CaptureFixture[str]) -> None:
    client, container, url = served
    _memory_routes(client)
    _more_memory_routes(client)
    _session_routes(client)
    _learning_routes(client)
    _agent_routes(client, container)
    _subagent_routes(client)
    _machine_routes(client, url, container.settings.api_keys[0])
    _graph_routes(client, container)

    assert leaks(database_url) == {}
    embedded = "\n".join(text for batch in container.embedder.calls for text in batch)  # type: ignore[attr-defined]
    assert [s for s in SECRETS if s in embedded] == []
    logs = "".join(capfd.readouterr())
    assert [s for s in SECRETS if s in logs] == []
    kinds = {s.kind for s in SAMPLES}
    with container.db.connection() as conn:
        stored = "\n".join(r["m"] for r in conn.execute("SELECT m::text AS m FROM memories m").fetchall())
    assert {k for k in kinds if f"[REDACTED:{k}]" in stored} == kinds
