"""Ask the session's Telegram topic before an engine's tool call, for engines the agent answers itself.

Codex (`app-server`) and Gemini (ACP) send their approval requests to the agent over JSON-RPC;
each becomes one `/api/approvals` request, posted to the topic with Approve / Deny / Allow for
this session, and the relay polls until a person answers. No answer within the timeout
(`ITACHI_APPROVAL_TIMEOUT_S`, default 120 s) or an unreachable API: deny. A grant "for this
session" is kept by the server per (session, tool kind), so later requests of that kind in the
session are allowed without asking, whichever engine process asks.

A plan (Claude's ExitPlanMode, `ask_plan`) is asked the same way with Approve plan / Revise; a
Revise comes back as a denial carrying the person's next message in the topic as its reason.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote

from chalicelib.approvals.domain.approvals import PLAN_TOOL
from chalicelib.contracts.api_transport import ApiClient, ApiError

Verdict = Literal["allow", "always", "deny"]
PLAN_CHARS = 3500
DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 600
POLL_S = 0.5


def approval_timeout_s(env: Mapping[str, str]) -> int:
    try:
        return max(1, min(int(env.get("ITACHI_APPROVAL_TIMEOUT_S") or DEFAULT_TIMEOUT_S), MAX_TIMEOUT_S))
    except ValueError:
        return DEFAULT_TIMEOUT_S


@dataclass
class ApprovalRelay:
    """Ask for the tool calls of one session or task (`session_id`: the Itachi session or task id)."""

    api: ApiClient
    session_id: str
    project: str
    topic_id: int | None
    timeout_s: int = DEFAULT_TIMEOUT_S
    stop: threading.Event = field(default_factory=threading.Event)

    def ask(self, tool: str, summary: str) -> Verdict:
        approval = self._answer(tool, " ".join(summary.split())[:1000])
        if approval.get("decision") != "allow":
            return "deny"
        return "always" if approval.get("always") else "allow"

    def ask_plan(self, plan: str) -> tuple[bool, str]:
        """Whether the plan is approved, else the revision asked for ("" when none came in time)."""
        approval = self._answer(PLAN_TOOL, plan.strip()[:PLAN_CHARS] or "(no plan text)")
        return approval.get("decision") == "allow", str(approval.get("reason") or "")

    def _answer(self, tool: str, summary: str) -> dict[str, Any]:
        """Ask, then poll until a person answers or the approval expires; {} if the API fails."""
        body: dict[str, Any] = {"session_id": self.session_id, "project": self.project, "tool": tool[:100],
                                "summary": summary, "timeout_s": self.timeout_s}
        if self.topic_id:
            body["topic_id"] = self.topic_id
        try:
            approval = self.api.post("/api/approvals", body)
            while approval.get("decision") == "ask" and not self.stop.wait(POLL_S):
                approval = self.api.get(f"/api/approvals/{quote(str(approval['id']))}")
        except (ApiError, OSError, KeyError, ValueError, AttributeError):
            return {}
        return approval if isinstance(approval, dict) else {}


def relay_for(api: ApiClient, record: Mapping[str, Any], env: Mapping[str, str]) -> ApprovalRelay | None:
    """The relay of a session or task started from Telegram, or None when approvals are off."""
    topic = record.get("telegram_topic_id")
    if not topic or env.get("ITACHI_APPROVALS") == "0":
        return None
    return ApprovalRelay(api, str(record["id"]), str(record["project"]), int(topic), approval_timeout_s(env))
