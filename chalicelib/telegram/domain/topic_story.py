"""What a task's or session's forum topic says: its title, progress lines, and the closing result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chalicelib.telegram.domain.telegram_text import truncate

TOPIC_NAME_LIMIT = 128
_EVENT_MARKS = {
    "tool_use": "🔧", "notice": "•", "dispatched": "•", "requeued": "•", "released": "•",
    "started": "▶️", "error": "⚠️", "rate_limit": "⚠️", "engine_switch": "🔁",
    "cancel_requested": "🛑", "close_requested": "🛑",
}  # fmt: skip
# Not shown as progress: the closing message says them (terminal states, the engine's final
# result), or they are the user's own words or bookkeeping (`cost`: the running spend reported).
_SILENT = frozenset({"completed", "failed", "cancelled", "timed_out", "closed", "result", "created",
                     "user_input", "init", "tool_result", "cost"})
_TOOL_DETAIL = ("file_path", "path", "command", "pattern", "url")
DETAIL_LIMIT = 300
_FINAL_MARKS = {
    "completed": "✅", "closed": "✅", "failed": "❌", "cancelled": "🛑", "timed_out": "⏱",
}


def topic_link(chat_id: int, topic_id: int) -> str | None:
    """A t.me link to a topic of a supergroup (ids of the form -100XXXXXXXXXX)."""
    digits = str(chat_id)
    if not topic_id or not digits.startswith("-100"):
        return None
    return f"https://t.me/c/{digits[4:]}/{topic_id}"


def topic_title(label: str, description: str) -> str:
    """A topic name such as "myproject: fix the login bug" (Telegram allows 128 characters)."""
    name = " ".join(f"{label}: {description}".split())
    return truncate(name, TOPIC_NAME_LIMIT)


def event_line(event: Mapping[str, Any]) -> str | None:
    """One progress event as a line of the topic; None for an event with nothing to show."""
    kind = str(event.get("kind") or "")
    if kind in _SILENT:
        return None
    text = str(event.get("text") or "").strip()
    data = event.get("data")
    if kind == "tool_use" and isinstance(data, Mapping):
        detail = next((str(data[k]) for k in _TOOL_DETAIL if data.get(k)), "")
        if detail not in text:  # the agent may have named the target already
            text = f"{text} {truncate(detail, DETAIL_LIMIT)}".strip()
    if not text:
        return None
    mark = _EVENT_MARKS.get(kind)
    return f"{mark} {text}" if mark else text


def result_message(status: str, summary: str, files_changed: Sequence[str] = ()) -> str:
    """The message that ends a topic's story: status, summary, and the files touched."""
    mark = _FINAL_MARKS.get(status, "•")
    lines = [f"{mark} {status.replace('_', ' ').capitalize()}"]
    if summary.strip():
        lines += ["", summary.strip()]
    if files_changed:
        shown = list(files_changed[:20])
        more = len(files_changed) - len(shown)
        lines += ["", "Files changed:", *(f"- {path}" for path in shown)]
        if more > 0:
            lines.append(f"... and {more} more")
    return "\n".join(lines)


def closed_title(title: str, status: str) -> str:
    """The topic's name once its story ended, prefixed with the outcome's mark."""
    return truncate(f"{_FINAL_MARKS.get(status, '•')} {title}", TOPIC_NAME_LIMIT)
