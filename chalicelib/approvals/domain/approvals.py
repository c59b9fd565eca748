"""Tool approvals: the record, the Telegram buttons' callback data and the message text. Pure.

A plan approval is one whose tool is Claude's `ExitPlanMode`: its summary is the plan, its
buttons Approve plan / Revise, and a Revise keeps it pending (`revising`) until the person's
next message in the topic, its `reason`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

PREFIX = "tap"
PLAN_TOOL = "ExitPlanMode"
Choice = Literal["allow", "deny", "always", "revise"]
_CODES: dict[str, Choice] = {"a": "allow", "d": "deny", "s": "always", "r": "revise"}
_DATA = re.compile(rf"^{PREFIX}:([0-9a-f]{{32}}):([adsr])$")
BUTTONS: tuple[tuple[str, str], ...] = (("✅ Approve", "a"), ("✖️ Deny", "d"),
                                        ("♾ Allow for this session", "s"))
PLAN_BUTTONS: tuple[tuple[str, str], ...] = (("✅ Approve plan", "a"), ("✏️ Revise", "r"))


@dataclass(frozen=True)
class Approval:
    id: str
    session_id: str
    project: str
    tool: str
    summary: str
    status: str  # pending | allowed | denied | expired
    always: bool
    decided_by: str | None
    decided_at: datetime | None
    created_at: datetime
    expires_at: datetime
    chat_id: int | None = None
    topic_id: int | None = None
    message_id: int | None = None
    reason: str | None = None  # a plan's revision request, the person's words
    revising: bool = False  # Revise pressed, the reason not yet written

    @property
    def is_plan(self) -> bool:
        return self.tool == PLAN_TOOL

    @property
    def decision(self) -> Literal["allow", "deny", "ask"]:
        """What the hook answers: allow, deny (denied or expired), or ask again (still pending)."""
        return {"allowed": "allow", "pending": "ask"}.get(self.status, "deny")  # type: ignore[return-value]


def callback_data(approval_id: str, code: str) -> str:
    return f"{PREFIX}:{approval_id.replace('-', '')}:{code}"


def parse_callback(data: str) -> tuple[str, Choice] | None:
    match = _DATA.match(data or "")
    if match is None:
        return None
    raw = match.group(1)
    ident = f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"
    return ident, _CODES[match.group(2)]


def buttons(approval: Approval) -> tuple[tuple[str, str], ...]:
    return PLAN_BUTTONS if approval.is_plan else BUTTONS


def allowed_choice(approval: Approval, choice: Choice) -> bool:
    """A plan is approved or revised; a tool call is approved, denied or allowed for the session."""
    return choice in ("allow", "revise") if approval.is_plan else choice != "revise"


def request_text(approval: Approval) -> str:
    if approval.is_plan:
        return (f"📝 Plan to approve ({approval.project})\n\n{approval.summary}\n\n"
                f"Session {approval.session_id[:8]}. ✏️ Revise, then write what to change here. No answer by "
                f"{approval.expires_at.strftime('%H:%M:%S')} UTC means the plan is not approved.")
    return (f"🔐 Tool approval ({approval.project})\n{approval.tool}: {approval.summary}\n"
            f"Session {approval.session_id[:8]}. No answer by "
            f"{approval.expires_at.strftime('%H:%M:%S')} UTC means deny.")


def revising_text(approval: Approval) -> str:
    return (f"✏️ Revising{_by(approval)}: write what to change in this topic; your next message goes "
            f"back to Claude.\n\n{approval.summary}")


def _by(approval: Approval) -> str:
    return f" by {approval.decided_by}" if approval.decided_by else ""


def decided_text(approval: Approval) -> str:
    if approval.is_plan:
        outcomes = {"allowed": "✅ Plan approved", "expired": "⌛ No answer in time: plan not approved",
                    "denied": "✏️ Sent back to revise" if approval.reason else "✖️ Plan not approved"}
        asked = f"\nAsked: {approval.reason}" if approval.reason else ""
        return (f"{outcomes.get(approval.status, approval.status)}{_by(approval)}{asked}\n\n"
                f"{approval.summary}\n({approval.project}, session {approval.session_id[:8]})")
    outcomes = {"allowed": "✅ Approved" + (" (allowed for this session)" if approval.always else ""),
                "denied": "✖️ Denied", "expired": "⌛ No answer in time: denied"}
    by = f" by {approval.decided_by}" if approval.decided_by else ""
    return (f"{outcomes.get(approval.status, approval.status)}{by}\n{approval.tool}: {approval.summary}\n"
            f"({approval.project}, session {approval.session_id[:8]})")
