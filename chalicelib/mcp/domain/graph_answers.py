"""Render the graph memory's answers as MCP tool text: the recalled context, open contradictions."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]
CONTENT_CHARS = 400


def _line(node: Any) -> str:
    node = node if isinstance(node, dict) else {}
    scope = f" (scope {node['scope']})" if node.get("scope") is not None else ""
    content = str(node.get("content") or "").strip()
    if len(content) > CONTENT_CHARS:
        content = content[: CONTENT_CHARS - 1] + "…"
    return f"{content}{scope} · id {node.get('id')}"


def recall_text(answer: Json, query: str, project: str, asked_deep: bool) -> str:
    """The context the graph returned, with how it was read (deep, or the fast path and why)."""
    if answer.get("deep"):
        how = "deep recall"
    else:
        how = "fast path (the server has no LLM key)" if asked_deep else "fast path"
    trace = f"; trace {answer['trace_id']}" if answer.get("trace_id") else ""
    text = str(answer.get("text") or "").strip()
    if not text:
        return f"The graph memory of {project} holds nothing relevant to {query!r} ({how}{trace})."
    return f"Graph memory of {project} for {query!r} ({how}{trace}):\n{text}"


def contradictions_text(answer: Json, project: str, status: str) -> str:
    found = [c for c in answer.get("contradictions") or [] if isinstance(c, dict)]
    if not found:
        return f"No {status.replace('_', ' ')} contradictions in {project}."
    lines = [
        f"{len(found)} {status.replace('_', ' ')} contradictions in {project} "
        f"(both instructions stay in force until resolved):"
    ]
    for item in found:
        reason = f" — {item['reason']}" if item.get("reason") else ""
        lines.append(
            f"- contradiction {item.get('id')} · {str(item.get('created_at') or '')[:10]}{reason}\n"
            f"  new: {_line(item.get('new'))}\n  old: {_line(item.get('old'))}"
        )
    if status == "open":
        lines.append(
            "A person resolves one with `itachi graph resolve ID keep_new|keep_old|keep_both` "
            "(or the Telegram buttons)."
        )
    return "\n".join(lines)
