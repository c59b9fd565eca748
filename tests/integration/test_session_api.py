"""Session API: events, idempotent edits, completion with the transcript, and the briefing."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from tests.conftest import RunningApi


def send(api: RunningApi, method: str, path: str, body: Any = None,
         key: str | None = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {**api.headers, "Content-Type": "application/json"}
    if key:
        headers["Idempotency-Key"] = key
    req = urllib.request.Request(api.url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=15) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def _session(api: RunningApi, session_id: str) -> dict[str, Any] | None:
    with api.container.session_units() as uow:
        return uow.sessions.get(session_id)


def edit(session: str, file: str, failed: bool = False) -> dict[str, Any]:
    return {"session_id": session, "project": "p1", "file": file, "tool": "Edit",
            "lines_added": 3, "lines_removed": 1, "language": "python", "diff": "+x",
            "failed": failed}


def test_a_session_is_recorded_from_start_to_completion_with_its_transcript(api: RunningApi) -> None:
    assert send(api, "POST", "/api/session/event", {
        "session_id": "s1", "project": "p1", "event": "start", "client": "claude",
        "data": {"source": "startup"}})[0] == 201
    assert send(api, "POST", "/api/session/edit", edit("s1", "app.py"))[0] == 201
    assert send(api, "POST", "/api/session/event", {
        "session_id": "s1", "project": "p1", "event": "stop",
        "data": {"last_assistant_message": "Added the retry loop"}})[0] == 201
    status, body = send(api, "POST", "/api/session/complete", {
        "session_id": "s1", "project": "p1", "reason": "other", "duration_ms": 1200,
        "files_changed": ["app.py"], "summary": "Session ended",
        "transcript": [{"role": "user", "text": "add retries", "line": 1},
                       {"role": "assistant", "text": "Added the retry loop", "line": 3}]})
    assert status == 200
    assert 0 <= body["difficulty"] <= 1
    stored = _session(api, "s1")
    assert stored is not None
    assert stored["ended_at"] is not None
    assert stored["transcript"][1]["text"] == "Added the retry loop"
    assert stored["last_progress"] == "Added the retry loop"


def test_a_replayed_edit_is_counted_once_and_answered_as_the_first_time(api: RunningApi) -> None:
    assert send(api, "POST", "/api/session/edit", edit("s2", "a.py"), key="k-9")[0] == 201
    status, body = send(api, "POST", "/api/session/edit", edit("s2", "a.py"), key="k-9")
    assert (status, body) == (201, {"recorded": True})
    stored = _session(api, "s2")
    assert stored is not None and stored["tool_successes"] == 1


def test_failures_and_compactions_raise_the_difficulty(api: RunningApi) -> None:
    for i in range(3):
        send(api, "POST", "/api/session/event", {"session_id": "s3", "project": "p1",
                                                 "event": "tool_failure", "data": {"i": i}})
    send(api, "POST", "/api/session/event", {"session_id": "s3", "project": "p1",
                                             "event": "pre_compact", "data": {"trigger": "auto"}})
    send(api, "POST", "/api/session/edit", edit("s3", "b.py"))
    _, easy = send(api, "POST", "/api/session/complete", {"session_id": "s2", "project": "p1"})
    _, hard = send(api, "POST", "/api/session/complete", {"session_id": "s3", "project": "p1"})
    assert hard["difficulty"] > easy["difficulty"]


def test_secrets_in_transcripts_and_progress_are_redacted_before_storage(api: RunningApi) -> None:
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    send(api, "POST", "/api/session/event", {"session_id": "s4", "project": "p1", "event": "stop",
                                             "data": {"last_assistant_message": f"use {key}"}})
    send(api, "POST", "/api/session/complete", {
        "session_id": "s4", "project": "p1",
        "transcript": [{"role": "user", "text": f"OPENAI_API_KEY={key}"}]})
    with api.container.db.connection() as conn:
        dump = json.dumps([dict(r) for r in conn.execute(
            "SELECT s.last_progress, s.transcript, e.data FROM sessions s"
            " JOIN session_events e USING (session_id) WHERE session_id = 's4'")], default=str)
    assert key not in dump


def test_the_briefing_lists_recent_sessions_and_hot_files(api: RunningApi) -> None:
    for file in ["hot.py", "hot.py", "cold.py"]:
        send(api, "POST", "/api/session/edit", edit("s5", file))
    send(api, "POST", "/api/session/complete", {"session_id": "s5", "project": "p1",
                                                "summary": "Refactored the hot path"})
    status, body = send(api, "GET", "/api/session/briefing?project=p1")
    assert status == 200
    assert body["hot_files"][0] == {"path": "hot.py", "edits": 2}
    assert body["recent_sessions"][0]["summary"] == "Refactored the hot path"
    assert set(body) >= {"active_patterns", "recent_decisions", "active_tasks"}


def test_malformed_session_requests_are_400_naming_the_field(api: RunningApi) -> None:
    status, body = send(api, "POST", "/api/session/event", {"session_id": "s", "project": "p",
                                                            "event": "explode"})
    assert status == 400 and body["field"] == "event"
    status, body = send(api, "POST", "/api/session/edit", {"session_id": "s", "project": "p"})
    assert status == 400 and body["field"] == "file"
    status, body = send(api, "GET", "/api/session/briefing")
    assert status == 400 and body["field"] == "project"
    req = urllib.request.Request(api.url + "/api/session/complete", data=b"{not json", method="POST",
                                 headers={**api.headers, "Content-Type": "application/json"})
    try:
        urllib.request.urlopen(req, timeout=10)
        raise AssertionError("expected 400")
    except urllib.error.HTTPError as exc:
        assert exc.code == 400
