"""What the brain needs: its tables (one unit of work), the facts it observes, Telegram, actions."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Any, Protocol

from chalicelib.brain.domain.brain_state import BrainState
from chalicelib.brain.domain.proposals import NewProposal, Observation, Proposal
from chalicelib.kernel.unit_of_work import UnitOfWork


class StateRecords(Protocol):
    def get(self, *, for_update: bool = False) -> BrainState: ...

    def save(self, state: BrainState) -> None:
        """Store the settings (enabled, interval, budget, max)."""
        ...

    def count_llm_call(self, today: date) -> None: ...
    def record_cycle(self, at: datetime, summary: dict[str, Any]) -> None: ...


class ProposalRecords(Protocol):
    def insert(self, proposal_id: str, new: NewProposal) -> Proposal | None:
        """Store a pending proposal; None when an open one has the same dedup key."""
        ...

    def get(self, proposal_id: str, *, for_update: bool = False) -> Proposal | None: ...
    def ids_with_prefix(self, prefix: str) -> list[str]: ...

    def update(self, proposal_id: str, *, where_status: tuple[str, ...], **values: Any) -> Proposal | None:
        """Set `values` if the proposal's status is one of `where_status`; None otherwise."""
        ...

    def covered_keys(self, since: datetime) -> set[str]:
        """Keys of open proposals and of those created since `since` (decided or not)."""
        ...

    def due_to_expire(self, now: datetime, limit: int = 100) -> list[Proposal]: ...
    def recent(self, *, status: str | None, limit: int) -> list[Proposal]: ...


class Observations(Protocol):
    """The facts of one cycle read from the database (tasks, machines, memories, lessons)."""

    def observe(self, now: datetime) -> list[Observation]: ...


class BrainUnitOfWork(UnitOfWork, Protocol):
    state: StateRecords
    proposals: ProposalRecords
    observations: Observations


BrainUnits = Callable[[], BrainUnitOfWork]


class QueueProbe(Protocol):
    def dlq_depths(self) -> dict[str, int]:
        """Messages waiting in each DLQ of the queue table, by queue key."""
        ...


class ProposalChannel(Protocol):
    """Where proposals are shown (Telegram with Approve / Reject)."""

    def post(self, proposal: Proposal) -> tuple[int, int] | None:
        """Send it; return (chat id, message id), or None when there is nowhere to send."""
        ...

    def refresh(self, proposal: Proposal) -> None:
        """Show its new status in the message it was sent as."""
        ...


class NoChannel:
    def post(self, proposal: Proposal) -> tuple[int, int] | None:
        return None

    def refresh(self, proposal: Proposal) -> None:
        return None


class Actions(Protocol):
    def run(self, action: dict[str, Any], idempotency_key: str) -> str:
        """Do what an approved proposal says, at most once per key; return what was done.
        Raise a DomainError when it cannot be done."""
        ...
