"""Approve, reject and expire proposals; the brain's switch and settings.

Approve is idempotent: the first press moves the proposal to `approving` (a row lock orders
concurrent presses), the action runs under the proposal's own idempotency key, and the result
is stored; a later press finds it decided and gets the same answer. A press while the brain is
off, or after the expiry, runs nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from chalicelib.brain.domain.brain_state import BrainState, configured
from chalicelib.brain.domain.proposals import (
    APPROVED,
    APPROVING,
    EXPIRED,
    FAILED,
    PENDING,
    REJECTED,
    Proposal,
)
from chalicelib.brain.services.ports import Actions, BrainUnits, NoChannel, ProposalChannel
from chalicelib.kernel.errors import Conflict, DomainError, or_not_found
from chalicelib.kernel.logging import get_logger, log_failure
from chalicelib.kernel.redaction import redact
from chalicelib.kernel.short_ids import ShortIdLookup


class ProposalDecisions:
    def __init__(self, units: BrainUnits, actions: Actions, channel: ProposalChannel | None = None, *,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._units, self._actions = units, actions
        self._channel = channel or NoChannel()
        self._clock = clock
        self._lookup: ShortIdLookup[Proposal] = ShortIdLookup(units, lambda uow: uow.proposals, "proposal")

    # Proposals.
    def resolve(self, ref: str) -> str:
        return self._lookup.resolve(ref)

    def get(self, ref: str) -> Proposal:
        return self._lookup.get(ref)

    def list(self, *, status: str | None = None, limit: int = 20) -> list[Proposal]:
        with self._units() as uow:
            return uow.proposals.recent(status=status, limit=limit)

    def approve(self, ref: str, by: str | None = None, *, notify: bool = True) -> Proposal:
        proposal_id = self.resolve(ref)
        now = self._clock()
        with self._units() as uow:
            proposal = or_not_found(uow.proposals.get(proposal_id, for_update=True), f"no proposal {ref!r}")
            if proposal.status not in (PENDING, APPROVING):
                return proposal  # decided already: the same answer again
            if proposal.expires_at <= now:
                expired = uow.proposals.update(proposal_id, where_status=(PENDING,), status=EXPIRED,
                                               decided_at=now)
                uow.commit()
                raise Conflict(f"proposal {proposal_id[:8]} expired at {proposal.expires_at:%H:%M} UTC"
                               if expired else "proposal already decided")
            if not uow.state.get().enabled:
                raise Conflict("the brain is off (/brain on): its proposals run nothing meanwhile")
            uow.proposals.update(proposal_id, where_status=(PENDING, APPROVING), status=APPROVING,
                                 decided_by=by, decided_at=now)
            uow.commit()
        try:
            result, status = self._actions.run(proposal.action, f"brain-proposal:{proposal_id}"), APPROVED
        except DomainError as exc:
            result, status = exc.message, FAILED
        except Exception as exc:  # the proposal records the failure; the button press still gets an answer
            log_failure("brain action failed", exc, proposal_id=proposal_id)
            result, status = f"{type(exc).__name__} (see the logs)", FAILED
        with self._units() as uow:
            done = uow.proposals.update(proposal_id, where_status=(APPROVING,), status=status,
                                        result=redact(result)[:1000])
            if done is None:  # a concurrent press stored it first
                done = uow.proposals.get(proposal_id)
            uow.commit()
        assert done is not None
        get_logger().info("brain proposal approved", extra={"proposal_id": proposal_id,
                                                            "status": done.status})
        if notify:
            self._refresh(done)
        return done

    def reject(self, ref: str, reason: str = "", by: str | None = None, *, notify: bool = True) -> Proposal:
        proposal_id = self.resolve(ref)
        with self._units() as uow:
            done = uow.proposals.update(proposal_id, where_status=(PENDING, REJECTED), status=REJECTED,
                                        reject_reason=redact(reason)[:500] or None, decided_by=by,
                                        decided_at=self._clock())
            if done is None:
                done = or_not_found(uow.proposals.get(proposal_id), f"no proposal {ref!r}")
            uow.commit()
        if notify:
            self._refresh(done)
        return done

    def expire_due(self) -> int:
        """Close the pending proposals past their expiry; return how many."""
        now = self._clock()
        with self._units() as uow:
            expired = [p for p in (uow.proposals.update(p.id, where_status=(PENDING,), status=EXPIRED,
                                                        decided_at=now)
                                   for p in uow.proposals.due_to_expire(now)) if p is not None]
            uow.commit()
        for proposal in expired:
            self._refresh(proposal)
        return len(expired)

    def _refresh(self, proposal: Proposal) -> None:
        try:
            self._channel.refresh(proposal)
        except Exception as exc:  # the decision is stored; its message may show the old state
            log_failure("brain proposal message not updated", exc, proposal_id=proposal.id)

    # The switch and the settings.
    def state(self) -> dict[str, Any]:
        with self._units() as uow:
            state = uow.state.get()
            pending = len(uow.proposals.recent(status=PENDING, limit=100))
        return {**state.to_json(self._clock().date()), "pending_proposals": pending}

    def switch(self, on: bool) -> dict[str, Any]:
        return self._change(lambda s: BrainState(**{**s.__dict__, "enabled": on}))

    def configure(self, name: str, value: str) -> dict[str, Any]:
        return self._change(lambda s: configured(s, name, value))

    def _change(self, change: Callable[[BrainState], BrainState]) -> dict[str, Any]:
        with self._units() as uow:
            uow.state.save(change(uow.state.get(for_update=True)))
            uow.commit()
        return self.state()
