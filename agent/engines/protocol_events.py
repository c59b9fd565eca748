"""The notifications of the engines' JSON-RPC modes as engine events, and their approval requests.

Codex `app-server` sends `item/completed` (agentMessage, commandExecution, fileChange) and
`turn/completed`; it asks with `item/commandExecution/requestApproval` and
`item/fileChange/requestApproval` (`execCommandApproval` / `applyPatchApproval` in its first
protocol). Gemini's ACP mode sends `session/update` (agent_message_chunk, tool_call,
tool_call_update) and asks with `session/request_permission`, offering options by kind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chalicelib.contracts.engine_events import TEXT_LIMIT, EngineEvent, EventKind, looks_rate_limited

CODEX_APPROVALS = {"item/commandExecution/requestApproval": "shell", "execCommandApproval": "shell",
                   "item/fileChange/requestApproval": "apply_patch", "applyPatchApproval": "apply_patch"}
# What Codex expects back, by protocol: the v2 item requests and the first protocol's.
_CODEX_DECISIONS = {"allow": ("accept", "approved"), "always": ("acceptForSession", "approved_for_session"),
                    "deny": ("decline", "denied")}


@dataclass(frozen=True)
class ToolAsk:
    """One approval request: the kind of tool (what a session-wide grant covers) and what it does."""

    tool: str
    summary: str


def failure(message: str) -> list[EngineEvent]:
    """A failed turn: its error (or rate limit) and an error result."""
    kind = EventKind.RATE_LIMIT if looks_rate_limited(message) else EventKind.ERROR
    return [EngineEvent(kind, message[:TEXT_LIMIT]), EngineEvent(EventKind.RESULT, message[:TEXT_LIMIT],
                                                                 {"is_error": True})]


def codex_event(method: str, params: Mapping[str, Any]) -> list[EngineEvent]:
    if method == "turn/completed":
        turn = params.get("turn") or {}
        if turn.get("status") == "completed":
            return [EngineEvent(EventKind.RESULT, data={"is_error": False, "usage": params.get("usage")})]
        error = turn.get("error") or {}
        return failure(str(error.get("message") if isinstance(error, dict) else error or
                           f"turn {turn.get('status') or 'failed'}"))
    if method != "item/completed":
        return []
    item = params.get("item") or {}
    kind = item.get("type")
    if kind == "agentMessage":
        return [EngineEvent(EventKind.TEXT, str(item.get("text") or "")[:TEXT_LIMIT])]
    if kind == "commandExecution":
        return [EngineEvent(EventKind.TOOL_USE, "shell", {"tool": "shell", "command": _command(item)[:500]})]
    if kind == "fileChange":
        files = _paths(item)
        return [EngineEvent(EventKind.TOOL_USE, "apply_patch", {"tool": "apply_patch", "files": files})]
    return []


def codex_ask(method: str, params: Mapping[str, Any], item: Mapping[str, Any] | None) -> ToolAsk:
    """What a Codex approval request asks (`item`: the item it is about, if it was announced)."""
    tool = CODEX_APPROVALS[method]
    if tool == "shell":
        what = _command(params) or _command(item or {})
    else:
        announced = params.get("fileChanges") or params.get("changes") or {}
        files = _paths(item or {}) or [str(p) for p in announced]
        what = "edit " + ", ".join(files) if files else "apply a patch"
    reason = params.get("reason")
    return ToolAsk(tool, f"{what} ({reason})" if reason else what)


def codex_answer(method: str, verdict: str) -> dict[str, str]:
    first = method in ("execCommandApproval", "applyPatchApproval")
    return {"decision": _CODEX_DECISIONS[verdict][1 if first else 0]}


def _command(item: Mapping[str, Any]) -> str:
    command = item.get("command")
    return " ".join(map(str, command)) if isinstance(command, list) else str(command or "")


def _paths(item: Mapping[str, Any]) -> list[str]:
    return [str(c.get("path")) for c in item.get("changes") or [] if isinstance(c, dict) and c.get("path")]


def acp_event(params: Mapping[str, Any]) -> list[EngineEvent]:
    update = params.get("update") or {}
    kind = update.get("sessionUpdate")
    if kind == "agent_message_chunk":
        content = update.get("content") or {}
        text = str(content.get("text") or "") if content.get("type") == "text" else ""
        return [EngineEvent(EventKind.TEXT, text[:TEXT_LIMIT], {"delta": True})] if text else []
    if kind == "tool_call":
        name = str(update.get("title") or update.get("kind") or "tool")
        data: dict[str, Any] = {"tool": str(update.get("kind") or name)}
        paths = [loc.get("path") for loc in update.get("locations") or [] if isinstance(loc, dict)]
        if paths:
            data["files"] = paths
        return [EngineEvent(EventKind.TOOL_USE, name[:200], data)]
    if kind == "tool_call_update" and update.get("status") in ("completed", "failed"):
        return [EngineEvent(EventKind.TOOL_RESULT, data={"tool_use_id": update.get("toolCallId"),
                                                         "is_error": update.get("status") == "failed"})]
    return []


def acp_ask(params: Mapping[str, Any]) -> ToolAsk:
    call = params.get("toolCall") or {}
    raw = call.get("rawInput")
    raw = raw if isinstance(raw, dict) else {}
    detail = raw.get("command") or raw.get("file_path") or raw.get("path") or raw.get("url") or ""
    title = str(call.get("title") or call.get("kind") or "tool")
    summary = title if not detail or str(detail) in title else f"{title}: {detail}"
    return ToolAsk(str(call.get("kind") or title)[:100], summary)


def acp_answer(options: Sequence[Mapping[str, Any]], verdict: str) -> dict[str, Any]:
    """The option the verdict selects (`allow_always` falls back to `allow_once`); cancelled if none fits."""
    wanted = {"allow": ("allow_once", "allow_always"), "always": ("allow_always", "allow_once"),
              "deny": ("reject_once", "reject_always")}[verdict]
    for kind in wanted:
        for option in options:
            if option.get("kind") == kind:
                return {"outcome": {"outcome": "selected", "optionId": option.get("optionId")}}
    return {"outcome": {"outcome": "cancelled"}}
