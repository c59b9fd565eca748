"""Tool approvals: the record, the Telegram buttons' callback data and the message text. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

PREFIX = "tap"
Choice = Literal["allow", "deny", "always"]
_CODES: dict[str, Choice] = {"a": "allow", "d": "deny", "s": "always"}
_DATA = re.compile(rf"^{PREFIX}:([0-9a-f]{{32}}):([ads])$")
BUTTONS: tuple[tuple[str, str], ...] = (("✅ Approve", "a"), ("✖️ Deny", "d"),
                                        ("♾ Allow for this session", "s"))


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


def request_text(approval: Approval) -> str:
    return (f"🔐 Tool approval ({approval.project})\n{approval.tool}: {approval.summary}\n"
            f"Session {approval.session_id[:8]}. No answer by "
            f"{approval.expires_at.strftime('%H:%M:%S')} UTC means deny.")


def decided_text(approval: Approval) -> str:
    outcomes = {"allowed": "✅ Approved" + (" (allowed for this session)" if approval.always else ""),
                "denied": "✖️ Denied", "expired": "⌛ No answer in time: denied"}
    by = f" by {approval.decided_by}" if approval.decided_by else ""
    return (f"{outcomes.get(approval.status, approval.status)}{by}\n{approval.tool}: {approval.summary}\n"
            f"({approval.project}, session {approval.session_id[:8]})")
