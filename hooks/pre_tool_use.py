"""PreToolUse: ask a person in Telegram before a tool call the permission mode would ask about.

Off unless turned on: `ITACHI_APPROVALS=1` (the agent sets it, with `ITACHI_TELEGRAM_TOPIC`,
for sessions and tasks started from Telegram) or `"approvals": true` in
$ITACHI_HOME/config.json (local sessions while the user is away). Then every call of a tool
that would prompt (Bash and WebFetch; Write, Edit, MultiEdit and NotebookEdit too unless the
mode is acceptEdits, or plan, which refuses edits itself; nothing in bypassPermissions) is sent
to the API, which posts it to the topic with Approve / Deny / Allow for this session, and the
hook waits for the answer: `permissionDecision` allow or deny. No answer within the timeout
(`ITACHI_APPROVAL_TIMEOUT_S`, default 120 s), an unreachable API or any error: deny. Never
spooled: a late answer is no answer.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any
from urllib.parse import quote

from chalicelib.contracts.api_transport import ApiError, request_json
from chalicelib.contracts.local_home import read_json
from hooks.runtime import HookContext, fail_open

DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 600
POLL_S = 0.5
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
ASKING_TOOLS = frozenset({"Bash", "WebFetch"}) | EDIT_TOOLS


def timeout_s(env: Any = os.environ) -> int:
    try:
        return max(1, min(int(env.get("ITACHI_APPROVAL_TIMEOUT_S") or DEFAULT_TIMEOUT_S), MAX_TIMEOUT_S))
    except ValueError:
        return DEFAULT_TIMEOUT_S


def enabled(ctx: HookContext, env: Any = os.environ) -> bool:
    if env.get("ITACHI_APPROVALS") in ("1", "true", "telegram"):
        return True
    return read_json(ctx.config.home / "config.json").get("approvals") is True


def asks(tool: str, mode: str) -> bool:
    """Whether the permission mode would ask about this tool."""
    if mode == "bypassPermissions" or tool not in ASKING_TOOLS:
        return False
    # acceptEdits lets edits through; plan mode refuses them whatever a hook answers.
    return not (mode in ("acceptEdits", "plan") and tool in EDIT_TOOLS)


def summary_of(tool: str, tool_input: dict[str, Any]) -> str:
    value = (tool_input.get("command") or tool_input.get("url") or tool_input.get("file_path")
             or tool_input.get("notebook_path") or json.dumps(tool_input)[:300])
    return " ".join(str(value).split())[:500]


def decision(event: str, verdict: str, reason: str) -> str:
    output = {"hookEventName": event, "permissionDecision": verdict, "permissionDecisionReason": reason}
    return json.dumps({"hookSpecificOutput": output}) + "\n"


def handle(ctx: HookContext) -> str | None:
    tool = str(ctx.payload.get("tool_name") or "")
    if not enabled(ctx) or not asks(tool, str(ctx.payload.get("permission_mode") or "default")):
        return None
    event = str(ctx.payload.get("hook_event_name") or "PreToolUse")
    raw_input = ctx.payload.get("tool_input")
    topic = os.environ.get("ITACHI_TELEGRAM_TOPIC", "")
    body = {"session_id": ctx.session_id or "unknown", "project": ctx.project, "tool": tool,
            "summary": summary_of(tool, raw_input if isinstance(raw_input, dict) else {}),
            "timeout_s": timeout_s(), **({"topic_id": int(topic)} if topic.isdigit() else {})}
    try:
        approval = _call(ctx, "POST", "/api/approvals", body)
        while approval.get("decision") == "ask" and ctx.deadline.remaining() > POLL_S:
            time.sleep(POLL_S)
            approval = _call(ctx, "GET", f"/api/approvals/{quote(str(approval['id']))}", None)
    except (ApiError, OSError, KeyError, ValueError) as exc:
        ctx.notes.append(f"approval=error:{type(exc).__name__}")
        return decision(event, "deny", "Itachi could not get an approval for this call, so it is denied.")
    verdict = "allow" if approval.get("decision") == "allow" else "deny"
    ctx.notes.append(f"approval={approval.get('status')}")
    who = approval.get("decided_by") or "nobody"
    reasons = {"allow": f"Approved in Telegram by {who}.",
               "deny": "Denied in Telegram." if approval.get("status") == "denied"
               else "No approval in time from Telegram: denied."}
    return decision(event, verdict, reasons[verdict])


def _call(ctx: HookContext, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
    answer = request_json(ctx.config.api_url, ctx.config.api_key, method, path, body,
                          timeout_s=max(0.5, min(10.0, ctx.deadline.remaining())),
                          user_agent=f"itachi-hooks/{ctx.config.client}")
    if not isinstance(answer, dict):
        raise ValueError("unexpected answer")
    return answer


def main() -> None:
    """The hook's entry point (`hooks/launch.py` calls it; so does `python -m`)."""
    fail_open("pre_tool_use", handle, budget_s=timeout_s() + 5, replay_limit=0)


if __name__ == "__main__":
    main()
