"""Secrets a user or an agent puts on the task path are redacted before anything is stored."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from chalicelib.bootstrap import Container
from chalicelib.contracts.api_transport import ApiClient
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, drain_dispatch, heartbeat, new_task

AWS_KEY = "AKIA" + "Q3EGRQ5XJ7TWKZNB"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def client(api: RunningApi) -> Iterator[ApiClient]:
    yield client_for(api.url, api.key)


def _stored_text(database_url: str) -> str:
    with psycopg.connect(database_url) as conn:
        tables = ("tasks", "task_events", "agent_sessions", "agent_session_events")
        present = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        return "\n".join(str(row) for table in tables if table in present
                         for row in conn.execute(f"SELECT * FROM {table}"))


def test_a_task_description_with_secrets_is_stored_and_echoed_redacted(
        client: ApiClient, container: Container) -> None:
    task = new_task(client, f"deploy with {AWS_KEY} and push using {GITHUB_TOKEN}")
    created = client.get(f"/api/tasks/{task['id']}/events")["events"][0]

    for text in (task["description"], created["text"]):
        assert AWS_KEY not in text and GITHUB_TOKEN not in text
        assert "[REDACTED:aws_access_key]" in text
    assert AWS_KEY not in _stored_text(container.settings.database_url)


def test_agent_reasons_session_prompts_and_inputs_are_redacted(client: ApiClient,
                                                               container: Container) -> None:
    heartbeat(client, "m1")
    task = new_task(client, "rotate the keys")
    drain_dispatch(container)
    claim = client.post(f"/api/tasks/{task['id']}/claim",
                        {"machine_id": "m1", "dispatch_seq": 1, "agent_instance": "i-1"})
    base = {"machine_id": "m1", "attempt": claim["attempt"]}
    client.post(f"/api/tasks/{task['id']}/engine-switch", {**base, "from_engine": "claude",
                                                           "to_engine": "codex", "reason": f"key {AWS_KEY}"})
    session = client.post("/api/sessions", {"prompt": f"use {GITHUB_TOKEN}", "project": "p", "machine": "m1"})
    client.post(f"/api/sessions/{session['id']}/input", {"text": f"and {AWS_KEY}"})

    stored = _stored_text(container.settings.database_url)
    assert AWS_KEY not in stored and GITHUB_TOKEN not in stored
