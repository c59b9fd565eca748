"""Claude's plan mode under approvals: its plan is asked in the topic as Approve plan / Revise.

Claude Code in print mode disables ExitPlanMode unless a permission prompt tool answers it, so a
Claude task in plan mode from Telegram runs with `--permission-prompt-tool stdio`: the CLI then
writes each permission question as a `control_request` (`can_use_tool`) line on stdout and waits
for our `control_response` line on stdin. Its ExitPlanMode request carries no input, so the plan
is taken from the assistant's `tool_use` with the same id.

- ExitPlanMode: Approve plan -> allow, with the session's mode set to acceptEdits (Claude leaves
  plan mode and edits without asking again; its hook still asks before commands). Revise -> deny
  with the person's words, and Claude stays in plan mode. No answer in time -> deny.
- Any other question while the plan is not approved (an edit plan mode refuses): deny.
- Any other question after it: asked as a tool approval.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from agent.engines.approval_relay import ApprovalRelay
from chalicelib.approvals.domain.approvals import PLAN_TOOL

PROMPT_TOOL_FLAGS = ("--permission-prompt-tool", "stdio")
NOT_APPROVED = "The plan is not approved yet: stay in plan mode and present it with ExitPlanMode."
NO_ANSWER = "Nobody approved the plan in time, so it is not approved: stay in plan mode and do not edit."
REVISE = "The user asks you to revise the plan before it is approved: {reason}"
APPROVED = [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]


def gates_plan(engine: str, options: Mapping[str, Any] | None, relay: ApprovalRelay | None) -> bool:
    """A Claude run in plan mode whose plan a person approves in its topic."""
    return engine == "claude" and relay is not None and (options or {}).get("permission_mode") == "plan"


class PlanGate:
    """Answer the control requests of one Claude run."""

    def __init__(self, relay: ApprovalRelay) -> None:
        self._relay = relay
        self._plans: dict[str, str] = {}
        self.approved = False

    def see(self, line: str, write: Callable[[str], bool]) -> bool:
        """Take note of a plan, or answer a control request with `write` (one line to the engine's
        stdin); True if the line was a control request."""
        try:
            message = json.loads(line)
        except ValueError:
            return False
        if not isinstance(message, dict):
            return False
        if message.get("type") == "assistant":
            self._note_plans(message)
            return False
        if message.get("type") != "control_request":
            return False
        request = message.get("request") or {}
        if request.get("subtype") == "can_use_tool":
            answer = self._decide(request)
            write(json.dumps({"type": "control_response", "response": {
                "subtype": "success", "request_id": message.get("request_id"), "response": answer}}))
        else:
            write(json.dumps({"type": "control_response", "response": {
                "subtype": "error", "request_id": message.get("request_id"),
                "error": f"unsupported control request {request.get('subtype')}"}}))
        return True

    def _note_plans(self, message: Mapping[str, Any]) -> None:
        content = (message.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") == PLAN_TOOL:
                plan = (block.get("input") or {}).get("plan")
                self._plans[str(block.get("id"))] = str(plan or "")

    def _decide(self, request: Mapping[str, Any]) -> dict[str, Any]:
        tool, tool_input = str(request.get("tool_name") or ""), request.get("input") or {}
        if tool == PLAN_TOOL:
            plan = str(tool_input.get("plan") or self._plans.get(str(request.get("tool_use_id")), ""))
            approved, reason = self._relay.ask_plan(plan)
            if approved:
                self.approved = True
                return {"behavior": "allow", "updatedInput": tool_input, "updatedPermissions": APPROVED}
            return {"behavior": "deny", "message": REVISE.format(reason=reason) if reason else NO_ANSWER}
        if not self.approved:
            return {"behavior": "deny", "message": NOT_APPROVED}
        summary = str(tool_input.get("command") or tool_input.get("file_path") or json.dumps(tool_input))
        if self._relay.ask(tool, summary) == "deny":
            return {"behavior": "deny", "message": "Denied in Telegram."}
        return {"behavior": "allow", "updatedInput": tool_input}
