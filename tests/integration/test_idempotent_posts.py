"""One idempotency rule for every POST: same key and request, the first reply; another request, 422.

The hooks' outbox replays exactly this way: every request the hooks spool, sent again twice,
changes nothing after the first time.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import psycopg

from tests.conftest import RunningApi
from tests.integration.test_hooks_against_fake_api import Workspace, hook_python  # noqa: F401

TABLES = ("memories", "sessions", "session_edits", "session_events", "tasks", "task_events",
          "processed_messages")


def _post(api: RunningApi, path: str, body: Any, key: str | None) -> tuple[int, dict[str, str], Any]:
    headers = {**api.headers, "Content-Type": "application/json"}
    if key:
        headers["Idempotency-Key"] = key
    request = urllib.request.Request(api.url + path, data=json.dumps(body).encode(), headers=headers,
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as resp:
            return resp.status, dict(resp.headers), json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())


def _state(api: RunningApi) -> dict[str, Any]:
    """Every row of the tables a hook's POST can touch, as text (reinforcement counts included)."""
    with psycopg.connect(api.container.settings.database_url) as conn:
        present = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        return {table: sorted(str(row) for row in conn.execute(f"SELECT * FROM {table}"))
                for table in TABLES if table in present}


def test_a_replayed_memory_is_the_first_reply_and_reinforces_nothing(api: RunningApi) -> None:
    body = {"project": "p", "content": "Always run the migrations before the tests"}
    first = _post(api, "/api/memory", body, "k-1")
    before = _state(api)
    again = [_post(api, "/api/memory", body, "k-1") for _ in range(2)]

    assert first[0] == 201
    assert [(s, b) for s, _, b in again] == [(201, first[2])] * 2
    assert again[0][1].get("Idempotent-Replayed") == "true"
    assert _state(api) == before


def test_the_same_key_with_another_body_is_a_422_and_stores_nothing(api: RunningApi) -> None:
    _post(api, "/api/memory/code-change", {"project": "p", "file": "a.py", "summary": "one"}, "k-2")
    before = _state(api)
    status, _, body = _post(api, "/api/memory/code-change", {"project": "p", "file": "a.py",
                                                             "summary": "two"}, "k-2")
    assert (status, body["field"]) == (422, "Idempotency-Key")
    assert _state(api) == before


def test_a_task_is_created_once_per_idempotency_key_header(api: RunningApi) -> None:
    body = {"project": "p", "description": "fix the login bug"}
    replies = [_post(api, "/api/tasks", body, "task-key") for _ in range(3)]
    assert {r[2]["id"] for r in replies} == {replies[0][2]["id"]}
    assert len(_state(api)["tasks"]) == 1


def test_a_request_that_fails_records_nothing_and_may_be_sent_again(api: RunningApi) -> None:
    status, _, _ = _post(api, "/api/memory", {"project": "p", "content": "bad\x00"}, "k-3")
    assert status == 400
    status, _, _ = _post(api, "/api/memory", {"project": "p", "content": "good now"}, "k-3")
    assert status == 201


def test_every_spooled_hook_request_replayed_twice_changes_nothing(api: RunningApi, tmp_path: Path,
                                                                   hook_python: str) -> None:  # noqa: F811
    ws = Workspace(tmp_path, hook_python)  # the API is unreachable: every POST is spooled
    session = str(uuid.uuid4())
    for hook, payload in [("session_start", "SessionStart.json"), ("post_tool_use", "PostToolUse.Edit.json"),
                          ("post_tool_use", "PostToolUse.Write.json"), ("pre_compact", "PreCompact.json"),
                          ("stop", "Stop.json"), ("session_end", "SessionEnd.json")]:
        ws.run(hook, ws.payload(payload, session_id=session))
    spooled = [json.loads(p.read_text()) for p in ws.outbox()]
    posts = [e for e in spooled if e["method"] == "POST"]
    assert {e["path"] for e in posts} >= {"/api/session/event", "/api/session/edit",
                                          "/api/memory/code-change"}

    first = [_post(api, e["path"], e["body"], e["key"]) for e in posts]
    assert all(200 <= status < 300 for status, _, _ in first), first
    before = _state(api)
    for _ in range(2):
        replies = [_post(api, e["path"], e["body"], e["key"]) for e in posts]
        assert [(s, b) for s, _, b in replies] == [(s, b) for s, _, b in first]
    assert _state(api) == before
