"""GET /api/sessions/{id}/export over HTTP: a session's conversation as Markdown or JSON."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from chalicelib.contracts.api_transport import ApiClient
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, heartbeat


@pytest.fixture
def client(api: RunningApi) -> ApiClient:
    return client_for(api.url, api.key)


def fetch(api: RunningApi, path: str) -> tuple[int, str, bytes]:
    request = urllib.request.Request(f"{api.url}{path}", headers=api.headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read()


def a_conversation(client: ApiClient) -> str:
    """A session with two user turns, the engine's answers and a tool call between them."""
    heartbeat(client, "m1")
    sid = client.post("/api/sessions", {"prompt": "why does the invoice test fail?", "project": "billing",
                                        "machine": "m1"})["id"]
    client.post(f"/api/sessions/{sid}/claim", {"machine_id": "m1"})
    client.post(f"/api/sessions/{sid}/events", {"machine_id": "m1", "events": [
        {"kind": "tool_use", "text": "Bash: pytest tests/test_invoice.py"},
        {"kind": "tool_result", "text": "1 failed: expected 10.01, got 10.00"},
        {"kind": "text", "text": "Totals are rounded down; they should round half up."},
        {"kind": "result", "text": "done"}]})
    client.post(f"/api/sessions/{sid}/input", {"text": "fix it with Decimal"})
    client.post(f"/api/sessions/{sid}/events", {"machine_id": "m1", "events": [
        {"kind": "text", "text": "Switched to Decimal.quantize with ROUND_HALF_UP."}]})
    return str(sid)


def test_the_markdown_export_holds_the_turns_and_answers_in_order(api: RunningApi, client: ApiClient) -> None:
    sid = a_conversation(client)

    status, content_type, body = fetch(api, f"/api/sessions/{sid}/export?format=md")

    assert status == 200 and content_type.startswith("text/markdown")
    text = body.decode()
    assert text.startswith(f"# Session {sid}\n")
    assert "- Project: billing" in text and "- Machine: m1" in text
    order = ["## You", "why does the invoice test fail?", "## claude",
             "> Tool: `Bash: pytest tests/test_invoice.py`",
             "> 1 failed: expected 10.01, got 10.00", "Totals are rounded down", "_Turn ended: done._",
             "## You", "fix it with Decimal", "## claude", "Switched to Decimal.quantize"]
    positions, start = [], 0
    for piece in order:
        start = text.index(piece, start)
        positions.append(start)
    assert positions == sorted(positions)


def test_the_json_export_lists_every_event_with_its_role(api: RunningApi, client: ApiClient) -> None:
    sid = a_conversation(client)

    status, content_type, body = fetch(api, f"/api/sessions/{sid}/export?format=json")

    assert status == 200 and content_type.startswith("application/json")
    exported = json.loads(body)
    assert exported["session"]["id"] == sid and exported["session"]["project"] == "billing"
    said = [(m["role"], m["kind"], m["text"]) for m in exported["messages"]]
    assert said == [
        ("user", "user_input", "why does the invoice test fail?"),
        ("system", "started", "on m1"),
        ("engine", "tool_use", "Bash: pytest tests/test_invoice.py"),
        ("engine", "tool_result", "1 failed: expected 10.01, got 10.00"),
        ("engine", "text", "Totals are rounded down; they should round half up."),
        ("engine", "result", "done"),
        ("user", "user_input", "fix it with Decimal"),
        ("engine", "text", "Switched to Decimal.quantize with ROUND_HALF_UP."),
    ]
    assert [m["seq"] for m in exported["messages"]] == sorted(m["seq"] for m in exported["messages"])


def test_another_format_is_a_400_naming_the_formats(api: RunningApi, client: ApiClient) -> None:
    sid = a_conversation(client)

    status, _, body = fetch(api, f"/api/sessions/{sid}/export?format=html")

    assert status == 400
    answer = json.loads(body)
    assert answer["field"] == "format" and "'md'" in answer["message"] and "'json'" in answer["message"]


def test_an_unknown_session_is_a_404(api: RunningApi) -> None:
    status, _, body = fetch(api, "/api/sessions/00000000-0000-4000-8000-000000000000/export?format=json")

    assert status == 404 and json.loads(body)["error"] == "not_found"
