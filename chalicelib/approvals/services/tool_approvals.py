"""Tool approvals from Telegram: ask, wait for a person, decide, record.

A hook asks for one tool call (`request`): if the session holds an "always" grant for the tool
the call is allowed and recorded at once; otherwise a pending approval is stored and sent to
the session's Telegram topic (or the forum's general chat) with Approve / Deny / Always for
this session. A press decides it once (`decide`); a pending approval read after its
`expires_at` becomes `expired`, which denies, and the message says so. With nowhere to send
(no Telegram configured) the call is denied and recorded. Every outcome stays in the table.

A plan approval (Claude's ExitPlanMode) has Approve plan / Revise: Revise (`decide` with
"revise") keeps it pending, with a fresh window as long as its first, until the person's next
message in the topic (`give_reason`), which denies it with that message as its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from typing import Protocol

from chalicelib.approvals.domain.approvals import Approval, Choice, allowed_choice
from chalicelib.kernel.errors import Conflict, InvalidInput, or_not_found
from chalicelib.kernel.logging import log_failure

NOBODY = "nobody to ask (Telegram unavailable)"
DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 600


class ApprovalStore(Protocol):
    def granted(self, session_id: str, tool: str) -> bool: ...

    def create(self, session_id: str, project: str, tool: str, summary: str, topic_id: int | None,
               expires_at: datetime, status: str = "pending", decided_by: str | None = None) -> Approval: ...

    def get(self, approval_id: str) -> Approval | None: ...

    def posted(self, approval_id: str, chat_id: int, message_id: int) -> None: ...

    def settle(self, approval_id: str, status: str, *, by: str | None, always: bool = False,
               now: datetime | None = None, reason: str | None = None) -> Approval | None: ...

    def revise(self, approval_id: str, *, by: str, now: datetime,
               expires_at: datetime) -> Approval | None: ...

    def awaiting_reason(self, chat_id: int, topic_id: int, now: datetime) -> Approval | None: ...


class ApprovalUnit(Protocol):
    approvals: ApprovalStore

    def __enter__(self) -> ApprovalUnit: ...

    def __exit__(self, *args: object) -> None: ...

    def commit(self) -> None: ...


class ApprovalChannel(Protocol):
    def post(self, approval: Approval) -> tuple[int, int] | None:
        """Send the request with its buttons; (chat id, message id), or None with nowhere to send."""
        ...

    def refresh(self, approval: Approval) -> None:
        """Show the outcome (or a plan's Revise waiting for its reason) in the request's message."""
        ...


class ToolApprovals:
    def __init__(self, units: Callable[[], AbstractContextManager[ApprovalUnit]], channel: ApprovalChannel, *,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._units = units
        self._channel = channel
        self._clock = clock

    def request(self, session_id: str, project: str, tool: str, summary: str, *, topic_id: int | None = None,
                timeout_s: int = DEFAULT_TIMEOUT_S) -> Approval:
        expires = self._clock() + timedelta(seconds=max(1, min(timeout_s, MAX_TIMEOUT_S)))
        with self._units() as uow:
            if uow.approvals.granted(session_id, tool):
                approval = uow.approvals.create(session_id, project, tool, summary, topic_id, expires,
                                                status="allowed", decided_by="allowed for this session")
                uow.commit()
                return approval
            approval = uow.approvals.create(session_id, project, tool, summary, topic_id, expires)
            uow.commit()
        try:
            where = self._channel.post(approval)
        except Exception:  # Telegram unreachable: nobody can answer, so the call is denied
            where = None
        with self._units() as uow:
            if where is None:
                settled = uow.approvals.settle(approval.id, "denied", by=NOBODY)
            else:
                uow.approvals.posted(approval.id, *where)
                settled = uow.approvals.get(approval.id)
            uow.commit()
        assert settled is not None
        return settled

    def status(self, approval_id: str) -> Approval:
        """The approval as it stands; a pending one past its deadline becomes expired (deny)."""
        with self._units() as uow:
            approval = or_not_found(uow.approvals.get(approval_id), f"no approval {approval_id}",
                                    field="approval_id")
            if approval.status == "pending" and approval.expires_at <= self._clock():
                expired = uow.approvals.settle(approval_id, "expired", by=None, now=self._clock())
                approval = expired or approval
                uow.commit()
                self._refresh(approval)
        return approval

    def decide(self, approval_id: str, choice: Choice, by: str) -> Approval:
        """One press decides it; a second one, or one after the deadline, is a Conflict."""
        status = "denied" if choice == "deny" else "allowed"
        with self._units() as uow:
            asked = uow.approvals.get(approval_id)
            if asked is not None and not allowed_choice(asked, choice):
                raise InvalidInput(f"this request has no {choice} button", field="choice")
            if choice == "revise" and asked is not None:
                now = self._clock()
                settled = uow.approvals.revise(approval_id, by=by, now=now,
                                               expires_at=now + (asked.expires_at - asked.created_at))
            else:
                settled = uow.approvals.settle(approval_id, status, by=by, always=choice == "always",
                                               now=self._clock())
            current = settled or uow.approvals.get(approval_id)
            uow.commit()
        current = or_not_found(current, f"no approval {approval_id}", field="approval_id")
        if settled is None:
            self.status(approval_id)  # expire it if that is why
            raise Conflict(f"this request was already {current.status}", field="approval_id")
        self._refresh(settled)
        return settled

    def give_reason(self, chat_id: int, topic_id: int, text: str, by: str) -> Approval | None:
        """The person's message after Revise: the plan goes back with it. None if no plan waits."""
        reason = text.strip()[:2000]
        if not reason:
            return None
        with self._units() as uow:
            waiting = uow.approvals.awaiting_reason(chat_id, topic_id, self._clock())
            settled = None if waiting is None else uow.approvals.settle(
                waiting.id, "denied", by=by, now=self._clock(), reason=reason)
            uow.commit()
        if settled is not None:
            self._refresh(settled)
        return settled

    def _refresh(self, approval: Approval) -> None:
        try:
            self._channel.refresh(approval)
        except Exception as exc:  # the record is what counts; the message edit is best effort
            log_failure("approval message not updated", exc)
