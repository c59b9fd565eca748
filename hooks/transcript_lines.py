"""Pick the conversation out of single transcript records (Claude Code, Codex, Gemini)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hooks.transcript import Transcript

EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "replace"})
_NOT_A_PROMPT = ("<local-command", "<command-", "<environment_context", "<user_instructions",
                 "<system-reminder", "# AGENTS.md")
_PATCH_FILE = re.compile(r"\*\*\* (?:Add|Update|Delete) File: ([^\n]+)")


def user_text(obj: dict[str, Any]) -> str:
    """The text a person typed in a Claude Code 'user' record ('' for tool results, meta)."""
    if obj.get("isMeta") or obj.get("isCompactSummary"):
        return ""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        content = "\n".join(
            str(block.get("text") or "")
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    text = str(content or "").strip()
    return "" if text.startswith(_NOT_A_PROMPT) else text


def assistant_blocks(obj: dict[str, Any], line_no: int) -> tuple[str, list[str], list[str]]:
    """Return (message id, text blocks, files written by tool calls) of an assistant record."""
    message = obj.get("message")
    message = message if isinstance(message, dict) else {}
    message_id = str(message.get("id") or obj.get("uuid") or f"line-{line_no}")
    texts: list[str] = []
    files: list[str] = []
    content = message.get("content")
    if isinstance(content, str):
        texts.append(content)
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(str(block.get("text") or ""))
        elif block.get("type") == "tool_use" and block.get("name") in EDIT_TOOLS:
            tool_input = block.get("input")
            if isinstance(tool_input, dict):
                files.append(str(tool_input.get("file_path") or tool_input.get("notebook_path")
                                 or ""))
    return message_id, texts, [f for f in files if f]


def codex_item(payload: Any, line_no: int, transcript: Transcript) -> None:
    """Add one Codex rollout ``response_item`` to the transcript."""
    if not isinstance(payload, dict):
        return
    kind = payload.get("type")
    if kind == "message" and payload.get("role") in ("user", "assistant"):
        content = payload.get("content")
        text = "\n".join(
            str(part.get("text") or "")
            for part in (content if isinstance(content, list) else [])
            if isinstance(part, dict)
        ).strip()
        if payload["role"] == "user" and text.startswith(_NOT_A_PROMPT):
            return
        transcript.add(str(payload["role"]), text, line_no)
    elif kind in ("custom_tool_call", "function_call") and payload.get("name") == "apply_patch":
        patch = str(payload.get("input") or payload.get("arguments") or "")
        for path in _PATCH_FILE.findall(patch):
            transcript.touched(path.strip())


def gemini_turns(data: Any, transcript: Transcript) -> None:
    """Add the messages of a Gemini CLI session file ({"messages": [...]})."""
    messages = data.get("messages") if isinstance(data, dict) else None
    for index, message in enumerate(messages if isinstance(messages, list) else [], start=1):
        if not isinstance(message, dict):
            continue
        role = {"user": "user", "gemini": "assistant", "model": "assistant"}.get(
            str(message.get("type") or message.get("role")), ""
        )
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(
                str(part.get("text") or "") for part in content if isinstance(part, dict)
            )
        stamp = str(message.get("timestamp") or "")
        if stamp:
            transcript.first_at = transcript.first_at or stamp
            transcript.last_at = stamp
        if role:
            transcript.add(role, str(content or ""), index)
