"""A session's conversation, exported to share: the user's turns and the engine's output, in order.

Each stored event becomes one message with a role: `user` (a turn), `engine` (what the engine
said or did) or `system` (the session's own steps: started, ended). Markdown groups consecutive
messages of one speaker under one heading; JSON keeps every event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chalicelib.tasks.domain.agent_session_states import INPUT_KIND, AgentSession

ENGINE_KINDS = frozenset({"text", "tool_use", "tool_result", "result", "error", "output", "rate_limit",
                          "notice"})
TOOL_RESULT_CHARS = 500  # a tool's output is long and rarely worth sharing whole


def role_of(kind: str) -> str:
    if kind == INPUT_KIND:
        return "user"
    return "engine" if kind in ENGINE_KINDS else "system"


def messages(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The events as messages, in sequence order."""
    ordered = sorted(events, key=lambda e: int(e.get("seq") or 0))
    return [{"seq": e.get("seq"), "role": role_of(str(e.get("kind", ""))), "kind": e.get("kind"),
             "text": str(e.get("text") or ""), "at": e.get("created_at")} for e in ordered]


def export_json(session: AgentSession, events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {"session": session.to_json(), "messages": messages(events)}


def export_markdown(session: AgentSession, events: Sequence[Mapping[str, Any]]) -> str:
    lines = [f"# Session {session.id}", "",
             f"- Project: {session.project}", f"- Machine: {session.machine_id}",
             f"- Engine: {session.engine}", f"- Status: {session.status.value}"]
    if session.created_at is not None:
        lines.append(f"- Started: {session.created_at.isoformat(timespec='seconds')}")
    speaker = None
    for message in messages(events):
        role, kind, text = message["role"], message["kind"], message["text"].strip()
        if not text and kind != "result":
            continue
        heading = {"user": "You", "engine": session.engine}.get(role)
        if heading and heading != speaker:
            lines += ["", f"## {heading}"]
        speaker = heading or speaker
        lines += ["", _block(kind, text)]
    return "\n".join(lines).rstrip() + "\n"


def _block(kind: str, text: str) -> str:
    if kind == "tool_use":
        return f"> Tool: `{_one_line(text)}`"
    if kind == "tool_result":
        short = text if len(text) <= TOOL_RESULT_CHARS else text[:TOOL_RESULT_CHARS] + " …"
        return "\n".join(f"> {line}" for line in short.splitlines() or [""])
    if kind == "result":
        return f"_Turn ended{': ' + _one_line(text) if text else ''}._"
    if kind == "error":
        return f"**Error:** {text}"
    if role_of(kind) == "system":
        return f"_{_one_line(text)}_"
    return text


def _one_line(text: str) -> str:
    return " ".join(text.split())
