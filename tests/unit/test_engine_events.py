"""Parsing engine NDJSON into events, and folding a run into its summary."""

from __future__ import annotations

import json
from pathlib import Path

from agent.engines.engine_run import RunSummary
from chalicelib.contracts.engine_events import EventKind, parse_line

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "claude-code" / "samples" / "stream-json.jsonl"


def kinds(engine: str, obj: object) -> list[str]:
    return [e.kind.value for e in parse_line(engine, json.dumps(obj))]


def test_the_recorded_claude_stream_parses_into_init_tools_texts_and_results() -> None:
    events = [e for line in SAMPLE.read_text().splitlines() for e in parse_line("claude", line)]
    run = RunSummary("claude")
    for event in events:
        run.add(event)

    assert events[0].kind == EventKind.INIT
    assert {e.data.get("tool") for e in events if e.kind == EventKind.TOOL_USE} >= {"Write", "Edit"}
    assert run.result_seen and not run.is_error and not run.rate_limited
    assert "/home/dev/myproject/notes.md" in run.files_touched
    assert run.cost_usd is not None and run.cost_usd > 0
    assert run.session_id == "2ae68614-dbc8-489f-922e-5d84c5e7e32b"


def test_hook_chatter_produces_no_events() -> None:
    assert kinds("claude", {"type": "system", "subtype": "hook_started"}) == []


def test_claude_giving_up_on_a_429_is_a_rate_limit() -> None:
    assistant = {"type": "assistant", "error": "rate_limit", "api_error_status": 429,
                 "message": {"content": [{"type": "text", "text": "API Error: Request rejected (429)"}]}}
    result = {"type": "result", "subtype": "success", "is_error": True, "api_error_status": 429,
              "api_error_type": "rate_limit_error", "result": "API Error: Request rejected (429) · slow down"}
    assert kinds("claude", assistant) == ["rate_limit"]
    assert kinds("claude", result) == ["rate_limit", "result"]


def test_a_rejected_rate_limit_event_is_a_rate_limit_and_a_warning_is_a_notice() -> None:
    assert kinds("claude", {"type": "rate_limit_event", "rate_limit_info": {"status": "rejected"}}) == [
        "rate_limit"]
    warning = {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed_warning"}}
    assert kinds("claude", warning) == ["notice"]


def test_assistant_text_about_rate_limits_is_not_a_rate_limit() -> None:
    text = {"type": "text", "text": "I added a rate limit (429)."}
    line = {"type": "assistant", "message": {"content": [text]}}
    assert kinds("claude", line) == ["text"]


def test_a_failed_result_mentioning_a_usage_limit_is_a_rate_limit() -> None:
    line = {"type": "result", "subtype": "error_during_execution", "is_error": True,
            "result": "Claude AI usage limit reached|1767225600"}
    assert kinds("claude", line) == ["rate_limit", "result"]


def test_codex_events_are_understood() -> None:
    assert kinds("codex", {"type": "thread.started", "thread_id": "t1"}) == ["init"]
    message = {"type": "agent_message", "text": "hi"}
    assert kinds("codex", {"type": "item.completed", "item": message}) == ["text"]
    assert kinds("codex", {"type": "item.completed",
                           "item": {"type": "file_change", "changes": [{"path": "a.py"}]}}) == ["tool_use"]
    assert kinds("codex", {"type": "turn.completed", "usage": {}}) == ["result"]
    assert kinds("codex", {"type": "turn.failed", "error": {"message": "429 Too Many Requests"}}) == [
        "rate_limit", "result"]
    assert kinds("codex", {"type": "error", "message": "stream disconnected"}) == ["error"]


def test_gemini_events_are_understood_and_deltas_are_joined() -> None:
    run = RunSummary("gemini")
    stream = [
        {"type": "init", "session_id": "s"},
        {"type": "message", "role": "assistant", "content": "Hel", "delta": True},
        {"type": "message", "role": "assistant", "content": "lo", "delta": True},
        {"type": "tool_use", "tool_name": "write_file", "tool_id": "1", "parameters": {"file_path": "x"}},
        {"type": "result", "status": "success", "stats": {}},
    ]
    for obj in stream:
        for event in parse_line("gemini", json.dumps(obj)):
            run.add(event)
    assert run.summary == "Hello"
    assert run.files_touched == ["x"]
    assert kinds("gemini", {"type": "error", "message": "RESOURCE_EXHAUSTED: quota"}) == ["rate_limit"]
    assert [e.kind.value for e in parse_line("gemini", "Quota exceeded for requests")] == ["rate_limit"]


def test_a_line_that_is_not_json_is_kept_as_output() -> None:
    assert [e.kind.value for e in parse_line("claude", "warming up")] == ["output"]
    assert parse_line("claude", "   ") == []
