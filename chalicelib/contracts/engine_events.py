"""Parsing the NDJSON that coding engines print in headless mode into one event vocabulary.

Claude Code (`--output-format stream-json`), Codex (`exec --json`) and Gemini
(`--output-format stream-json`) each get a line parser; `parse_line` picks one by engine
name. A rate limit is recognised only on the error channel (structured error fields, error
events, failed results), never in ordinary assistant text, so a task *about* rate limiting
does not trip an engine switch.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

TEXT_LIMIT = 4000
_RATE_LIMIT = re.compile(
    r"rate[ _-]?limit|usage limit|quota|too many requests|resource[ _]exhausted|\b429\b", re.I)


class EventKind(StrEnum):
    INIT = "init"
    TEXT = "text"
    TOOL_USE = "tool_use"
    TOOL_RESULT = "tool_result"
    RESULT = "result"
    RATE_LIMIT = "rate_limit"
    ERROR = "error"
    NOTICE = "notice"
    OUTPUT = "output"  # a line that is not JSON


@dataclass(frozen=True)
class EngineEvent:
    kind: EventKind
    text: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)


def looks_rate_limited(text: str) -> bool:
    return bool(_RATE_LIMIT.search(text or ""))


def _clip(text: Any) -> str:
    return str(text or "")[:TEXT_LIMIT]


def _tool_data(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {"tool": name}
    for key in ("file_path", "path", "command", "pattern", "url"):
        if isinstance(params.get(key), str):
            data[key] = params[key][:500]
    return data


def parse_claude(obj: Mapping[str, Any]) -> list[EngineEvent]:
    kind, subtype = obj.get("type"), obj.get("subtype")
    if kind == "system":
        if subtype == "init":
            return [EngineEvent(EventKind.INIT, data={"session_id": obj.get("session_id"),
                                                      "model": obj.get("model")})]
        if subtype == "api_retry":
            return [EngineEvent(EventKind.NOTICE, "API retry", {"error_status": obj.get("error_status"),
                                                                 "attempt": obj.get("attempt")})]
        return []  # hook and status chatter
    if kind == "rate_limit_event":
        info = obj.get("rate_limit_info") or {}
        status = str(info.get("status", ""))
        event_kind = EventKind.RATE_LIMIT if status == "rejected" else EventKind.NOTICE
        return [EngineEvent(event_kind, f"rate limit status: {status}", dict(info))]
    if kind == "assistant":
        if obj.get("error") == "rate_limit" or obj.get("api_error_status") == 429:
            return [EngineEvent(EventKind.RATE_LIMIT, _clip(_first_text(obj)),
                                {"status": obj.get("api_error_status")})]
        return _claude_blocks(obj)
    if kind == "user":
        content = (obj.get("message") or {}).get("content")
        blocks = content if isinstance(content, list) else []
        return [EngineEvent(EventKind.TOOL_RESULT, data={"tool_use_id": b.get("tool_use_id"),
                                                         "is_error": bool(b.get("is_error"))})
                for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
    if kind == "result":
        return _claude_result(obj)
    return []


def _first_text(obj: Mapping[str, Any]) -> str:
    for block in (obj.get("message") or {}).get("content") or []:
        if isinstance(block, dict) and block.get("type") == "text":
            return str(block.get("text", ""))
    return ""


def _claude_blocks(obj: Mapping[str, Any]) -> list[EngineEvent]:
    events = []
    for block in (obj.get("message") or {}).get("content") or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and block.get("text"):
            events.append(EngineEvent(EventKind.TEXT, _clip(block["text"])))
        elif block.get("type") == "tool_use":
            events.append(EngineEvent(EventKind.TOOL_USE, str(block.get("name", "")),
                                      _tool_data(str(block.get("name", "")), block.get("input") or {})))
    return events


def _claude_result(obj: Mapping[str, Any]) -> list[EngineEvent]:
    text = _clip(obj.get("result"))
    is_error = bool(obj.get("is_error")) or str(obj.get("subtype", "success")) != "success"
    data = {"is_error": is_error, "cost_usd": obj.get("total_cost_usd"),
            "num_turns": obj.get("num_turns"), "session_id": obj.get("session_id"),
            "duration_ms": obj.get("duration_ms")}
    events = [EngineEvent(EventKind.RESULT, text, data)]
    limited = (obj.get("api_error_status") == 429 or obj.get("api_error_type") == "rate_limit_error"
               or (is_error and looks_rate_limited(text)))
    if limited:
        events.insert(0, EngineEvent(EventKind.RATE_LIMIT, text, {"status": obj.get("api_error_status")}))
    return events


def _error_events(message: str, data: Mapping[str, Any] | None = None) -> list[EngineEvent]:
    kind = EventKind.RATE_LIMIT if looks_rate_limited(message) else EventKind.ERROR
    return [EngineEvent(kind, _clip(message), dict(data or {}))]


def parse_codex(obj: Mapping[str, Any]) -> list[EngineEvent]:
    kind = obj.get("type")
    if kind is None and isinstance(obj.get("msg"), dict):  # older `codex exec --json` envelope
        msg = obj["msg"]
        if msg.get("type") == "agent_message":
            return [EngineEvent(EventKind.TEXT, _clip(msg.get("message")))]
        return _error_events(str(msg.get("message", ""))) if msg.get("type") == "error" else []
    if kind == "thread.started":
        return [EngineEvent(EventKind.INIT, data={"session_id": obj.get("thread_id")})]
    if kind == "item.completed":
        item = obj.get("item") or {}
        item_type = item.get("type") or item.get("item_type")
        if item_type == "agent_message":
            return [EngineEvent(EventKind.TEXT, _clip(item.get("text")))]
        if item_type == "command_execution":
            return [EngineEvent(EventKind.TOOL_USE, "shell", {"tool": "shell",
                                                              "command": str(item.get("command", ""))[:500]})]
        if item_type == "file_change":
            paths = [c.get("path") for c in item.get("changes") or [] if isinstance(c, dict)]
            return [EngineEvent(EventKind.TOOL_USE, "apply_patch", {"tool": "apply_patch", "files": paths})]
        if item_type == "error":
            return _error_events(str(item.get("message", "")))
        return []
    if kind == "turn.completed":
        return [EngineEvent(EventKind.RESULT, data={"is_error": False, "usage": obj.get("usage")})]
    if kind == "turn.failed":
        message = str((obj.get("error") or {}).get("message", "turn failed"))
        return [*_error_events(message), EngineEvent(EventKind.RESULT, _clip(message), {"is_error": True})]
    if kind == "error":
        return _error_events(str(obj.get("message", "")))
    return []


def parse_gemini(obj: Mapping[str, Any]) -> list[EngineEvent]:
    kind = obj.get("type")
    if kind == "init":
        return [EngineEvent(EventKind.INIT, data={"session_id": obj.get("session_id") or obj.get("sessionId"),
                                                  "model": obj.get("model")})]
    if kind == "message" and obj.get("role") == "assistant":
        return [EngineEvent(EventKind.TEXT, _clip(obj.get("content")), {"delta": bool(obj.get("delta"))})]
    if kind == "tool_use":
        name = str(obj.get("tool_name", ""))
        return [EngineEvent(EventKind.TOOL_USE, name, _tool_data(name, obj.get("parameters") or {}))]
    if kind == "tool_result":
        return [EngineEvent(EventKind.TOOL_RESULT, data={"tool_use_id": obj.get("tool_id"),
                                                         "is_error": obj.get("status") != "success"})]
    if kind == "error":
        return _error_events(str(obj.get("message", "")), {"severity": obj.get("severity")})
    if kind == "result":
        error = obj.get("error") or {}
        message = str(error.get("message", "")) if isinstance(error, dict) else str(error)
        is_error = obj.get("status") not in (None, "success")
        events = [EngineEvent(EventKind.RESULT, _clip(message), {"is_error": is_error,
                                                                 "stats": obj.get("stats")})]
        return [*_error_events(message), *events] if is_error and message else events
    return []


PARSERS: dict[str, Callable[[Mapping[str, Any]], list[EngineEvent]]] = {
    "claude": parse_claude, "codex": parse_codex, "gemini": parse_gemini,
}


def parse_line(engine: str, line: str) -> list[EngineEvent]:
    """Parse one stdout line of `engine`; non-JSON lines come back as OUTPUT (or RATE_LIMIT)."""
    stripped = line.strip()
    if not stripped:
        return []
    try:
        obj = json.loads(stripped)
    except ValueError:
        obj = None
    if not isinstance(obj, dict):
        # Gemini prints some failures as plain text; Claude and Codex stay on the JSON channel.
        if engine == "gemini" and looks_rate_limited(stripped):
            return [EngineEvent(EventKind.RATE_LIMIT, _clip(stripped))]
        return [EngineEvent(EventKind.OUTPUT, _clip(stripped))]
    return PARSERS.get(engine, parse_claude)(obj)
