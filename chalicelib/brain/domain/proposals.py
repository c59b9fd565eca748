"""What the brain observes and what it proposes: records, actions, statuses and their text.

An observation is a fact worth a look (a task failing the same way again, a machine gone
quiet, a DLQ with messages); a proposal is what the brain would do about one, waiting for a
human's Approve or Reject. Nothing here does I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.redaction import redact

PROPOSAL_TTL = timedelta(hours=24)
# What Approve may run: each kind names the fields its action needs.
ACTIONS: dict[str, tuple[str, ...]] = {
    "retry_task": ("task_id",),
    "create_task": ("project", "description"),
    "requeue_dlq": ("queue",),
    "pause_machine": ("machine_id",),
}
PENDING, APPROVING, APPROVED, REJECTED, EXPIRED, FAILED = (
    "pending", "approving", "approved", "rejected", "expired", "failed")
OPEN = (PENDING, APPROVING)
CALLBACK_PREFIX = "bp"


@dataclass(frozen=True)
class Observation:
    kind: str  # repeated_failure | stale_task | machine_quiet | dlq | error_pattern | lesson_decline
    key: str  # what makes two observations the same thing (the proposal's dedup key)
    project: str | None
    summary: str
    severity: int  # 1 (most urgent) .. 5
    action: dict[str, Any]
    facts: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        validate_action(self.action)
        object.__setattr__(self, "summary", redact(self.summary))


@dataclass(frozen=True)
class NewProposal:
    dedup_key: str
    project: str | None
    title: str
    rationale: str
    priority: int
    action: dict[str, Any]
    expires_at: datetime


@dataclass(frozen=True, kw_only=True)
class Proposal(NewProposal):
    """A stored proposal: what was proposed, and what became of it."""

    id: str
    status: str
    created_at: datetime
    result: str | None = None
    reject_reason: str | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None
    telegram_chat_id: int | None = None
    telegram_message_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in self.__dataclass_fields__}
        for k in ("created_at", "expires_at", "decided_at"):
            out[k] = out[k].isoformat() if out[k] else None
        return out


def validate_action(action: dict[str, Any]) -> None:
    needs = ACTIONS.get(str(action.get("kind")))
    if needs is None:
        raise InvalidInput(f"unknown action {action.get('kind')!r}", field="action")
    missing = [f for f in needs if not action.get(f)]
    if missing:
        raise InvalidInput(f"action {action['kind']} needs {', '.join(missing)}", field="action")


def proposal_from(observation: Observation, now: datetime, *, title: str | None = None,
                  rationale: str | None = None, priority: int | None = None) -> NewProposal:
    return NewProposal(observation.key, observation.project, redact(title or observation.summary)[:200],
                       redact(rationale or observation.summary)[:2000],
                       min(5, max(1, priority or observation.severity)), observation.action,
                       now + PROPOSAL_TTL)


def describe_action(action: dict[str, Any]) -> str:
    kind = action.get("kind")
    if kind == "retry_task":
        return f"retry task {str(action['task_id'])[:8]} as a new task"
    if kind == "create_task":
        return f"create a task in {action['project']}: {str(action['description'])[:120]}"
    if kind == "requeue_dlq":
        return f"move the messages of the {action['queue']} DLQ back to its queue"
    if kind == "pause_machine":
        return f"pause machine {action['machine_id']} (no new tasks until resumed)"
    return str(kind)


def proposal_text(p: Proposal) -> str:
    """The Telegram message of a proposal, with its outcome once decided."""
    lines = [f"🧠 Proposal (P{p.priority}){f' [{p.project}]' if p.project else ''}: {p.title}",
             p.rationale, f"Action: {describe_action(p.action)}",
             f"Expires {p.expires_at:%Y-%m-%d %H:%M} UTC · id {p.id[:8]}"]
    if p.status == APPROVED:
        lines.append(f"✅ Approved{f' by {p.decided_by}' if p.decided_by else ''}: {p.result or 'done'}")
    elif p.status == FAILED:
        lines.append(f"⚠️ Approved but the action failed: {p.result}")
    elif p.status == REJECTED:
        lines.append(f"✖️ Rejected{f': {p.reject_reason}' if p.reject_reason else ''}")
    elif p.status == EXPIRED:
        lines.append("⌛ Expired without a decision")
    return "\n".join(line for line in lines if line)


def callback_data(proposal_id: str, approve: bool) -> str:
    return f"{CALLBACK_PREFIX}:{proposal_id}:{'a' if approve else 'r'}"


def parse_callback(data: str) -> tuple[str, bool] | None:
    parts = data.split(":")
    if len(parts) != 3 or parts[0] != CALLBACK_PREFIX or parts[2] not in ("a", "r") or len(parts[1]) != 36:
        return None
    return parts[1], parts[2] == "a"


REASON_QUESTION = "Why reject proposal {short}? Reply to this message with the reason."
_REASON_ASKED = re.compile(r"^Why reject proposal ([0-9a-f]{8})\? Reply to this message")


def reason_question(proposal_id: str) -> str:
    """What the bot asks after Reject is pressed; a reply to it is the rejection's reason."""
    return REASON_QUESTION.format(short=proposal_id[:8])


def proposal_asked_about(text: str) -> str | None:
    """The short id of the proposal a reason question is about, if `text` is one."""
    match = _REASON_ASKED.match(text)
    return match.group(1) if match else None
