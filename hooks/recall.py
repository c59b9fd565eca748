"""Recall at the moment of need, from PostToolUse: what memory holds about a file the model just
read, and the recorded fixes for a command that just failed or printed a stack trace.

Same rules as the prompt hook: its own short deadline inside the PostToolUse budget, fail open,
trusted memories only (the API never returns quarantined ones). A memory is injected at most
once per session, and never one the prompt hook already showed (`hooks/injected.py`).
Off with ITACHI_RECALL=0 or `"recall": false` in $ITACHI_HOME/config.json; ITACHI_RECALL_BUDGET_S
raises the deadline (to 1.8 s at most) on a slow machine.
"""

from __future__ import annotations

import os
import re
from typing import Any

from chalicelib.contracts.local_home import read_json
from hooks import injected
from hooks.context_render import memory_line, stale_after_days
from hooks.edits import relative_path
from hooks.runtime import Deadline, HookContext, context_output

BUDGET_S = 0.5  # the prompt hook's deadline
MAX_BUDGET_S = 1.8  # ITACHI_RECALL_BUDGET_S may raise it this far (inside PostToolUse's 2 s)
LIMIT = 3
ITEM_CHARS = 300
READ_TOOLS = frozenset({"Read", "read_file", "NotebookRead"})
SHELL_TOOLS = frozenset({"Bash", "shell", "run_shell_command"})
_TRACE = re.compile(r"Traceback \(most recent call last\)|^\s+at \S+ \(.*:\d+:\d+\)|^panic: |"
                    r"^Exception in thread |^\w+(\.\w+)*(Error|Exception): ", re.MULTILINE)


def enabled(ctx: HookContext, env: Any = os.environ) -> bool:
    if env.get("ITACHI_RECALL", "1") == "0":
        return False
    return read_json(ctx.config.home / "config.json").get("recall", True) is not False


def budget_s(env: Any = os.environ) -> float:
    try:
        return max(0.1, min(float(env.get("ITACHI_RECALL_BUDGET_S") or BUDGET_S), MAX_BUDGET_S))
    except ValueError:
        return BUDGET_S


def request_for(ctx: HookContext) -> tuple[str, dict[str, Any]] | None:
    """The recall query this tool call calls for, if any: a file read, a failure or a stack trace."""
    payload, tool = ctx.payload, str(ctx.payload.get("tool_name") or "")
    raw_input = payload.get("tool_input")
    tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
    event = str(payload.get("hook_event_name") or "PostToolUse")
    if tool in READ_TOOLS and event == "PostToolUse":
        path = str(tool_input.get("file_path") or tool_input.get("path") or "")
        if path:
            return "file", {"file": relative_path(path, ctx.cwd)}
    if tool in SHELL_TOOLS:
        error = _shell_error(payload, event)
        if error:
            return "error", {"error": error[-4000:]}
    return None


def _shell_error(payload: dict[str, Any], event: str) -> str:
    if event == "PostToolUseFailure":
        return str(payload.get("error") or "")
    response = payload.get("tool_response")
    if isinstance(response, dict):
        text = f"{response.get('stderr') or ''}\n{response.get('stdout') or ''}"
    else:
        text = str(response or "")
    return text if _TRACE.search(text) else ""


def recall_output(ctx: HookContext) -> str | None:
    """additionalContext with what memory holds for this tool call, never one shown before."""
    if not enabled(ctx):
        return None
    wanted = request_for(ctx)
    if wanted is None:
        return None
    kind, query = wanted
    quick = HookContext(ctx.name, ctx.config, Deadline(min(budget_s(), ctx.deadline.remaining())),
                        ctx.payload, ctx.argv)
    quick.notes = ctx.notes
    params = {"project": ctx.project, "limit": LIMIT, **query}
    (answer,) = quick.api.get_many([("/api/memory/recall", params)])
    results = [r for r in (answer or {}).get("results") or [] if isinstance(r, dict) and r.get("id")]
    already = injected.shown(ctx)
    fresh = [r for r in results if str(r["id"]) not in already]
    if not fresh:
        return None
    injected.add(ctx, [r["id"] for r in fresh])
    ctx.notes.append(f"recall={kind}:{len(fresh)}")
    title = (f"=== Itachi Memory about {query['file']} ===" if kind == "file"
             else "=== Itachi Memory: recorded fixes for this error ===")
    lines = [memory_line(r, stale_after=stale_after_days(os.environ)) for r in fresh]
    event_name = str(ctx.payload.get("hook_event_name") or "PostToolUse")
    return context_output(event_name, "\n".join([title, *lines]))
