"""A plan's Revise on real Postgres (`ToolApprovals.revise` through `decide`, and `give_reason`):
Revise keeps the plan pending with a fresh window, the person's next message in that topic denies
it with those words, and nothing else (another topic, a blank message, a late one) does."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.approvals.adapters.approval_repository import approval_units
from chalicelib.approvals.domain.approvals import PLAN_TOOL, Approval
from chalicelib.approvals.services.tool_approvals import ToolApprovals
from chalicelib.bootstrap import Container
from chalicelib.kernel.errors import Conflict, InvalidInput

CHAT, TOPIC, OTHER_TOPIC = -100123, 77, 78
BY = "telegram:alice_dev"


@dataclass
class RecordingChannel:
    """Telegram's side of approvals: each request gets a message id; each refresh is kept."""

    refreshed: list[Approval] = field(default_factory=list)

    def post(self, approval: Approval) -> tuple[int, int] | None:
        return CHAT, 500 + len(self.refreshed)

    def refresh(self, approval: Approval) -> None:
        self.refreshed.append(approval)


@dataclass
class Clock:
    now: datetime = field(default_factory=lambda: datetime.now(UTC))

    def __call__(self) -> datetime:
        return self.now


def approvals(container: Container, clock: Callable[[], datetime]) -> tuple[ToolApprovals, RecordingChannel]:
    channel = RecordingChannel()
    return ToolApprovals(approval_units(container.db), channel, clock=clock), channel


def ask_plan(service: ToolApprovals, timeout_s: int = 60) -> Approval:
    return service.request("session-1", "myproject", PLAN_TOOL, "PLAN-ONE: write plan.txt", topic_id=TOPIC,
                           timeout_s=timeout_s)


def test_the_next_message_after_revise_denies_the_plan_with_those_words(container: Container) -> None:
    service, channel = approvals(container, Clock())
    plan = ask_plan(service)

    revising = service.decide(plan.id, "revise", BY)
    assert (revising.status, revising.revising, revising.decision) == ("pending", True, "ask")
    assert service.give_reason(CHAT, OTHER_TOPIC, "not for this plan", BY) is None
    assert service.give_reason(CHAT, TOPIC, "   ", BY) is None

    revised = service.give_reason(CHAT, TOPIC, "  write notes.md instead  ", BY)

    assert revised is not None
    assert (revised.status, revised.revising, revised.reason, revised.decided_by) == (
        "denied", False, "write notes.md instead", BY)
    assert service.status(plan.id).reason == "write notes.md instead"
    assert service.give_reason(CHAT, TOPIC, "a later message is just a message", BY) is None
    assert [(a.status, a.revising) for a in channel.refreshed] == [("pending", True), ("denied", False)]


def test_revise_gives_the_plan_a_fresh_window_and_a_reason_after_it_comes_too_late(
    container: Container,
) -> None:
    clock = Clock()
    service, _ = approvals(container, clock)
    plan = ask_plan(service, timeout_s=60)
    clock.now += timedelta(seconds=50)

    revising = service.decide(plan.id, "revise", BY)

    window = plan.expires_at - plan.created_at
    assert revising.expires_at == clock.now + window
    assert revising.expires_at > plan.expires_at
    clock.now += timedelta(seconds=30)  # past the first window, inside the fresh one
    assert service.status(plan.id).status == "pending"
    clock.now = revising.expires_at + timedelta(seconds=1)
    assert service.give_reason(CHAT, TOPIC, "too late", BY) is None
    expired = service.status(plan.id)
    assert (expired.status, expired.reason, expired.decision) == ("expired", None, "deny")


def test_revise_is_refused_twice_on_a_decided_plan_and_on_a_tool_call(container: Container) -> None:
    service, _ = approvals(container, Clock())
    plan = ask_plan(service)
    service.decide(plan.id, "revise", BY)
    with pytest.raises(Conflict):
        service.decide(plan.id, "revise", BY)

    approved = ask_plan(service)
    assert service.decide(approved.id, "allow", BY).status == "allowed"
    with pytest.raises(Conflict):
        service.decide(approved.id, "revise", BY)

    tool_call = service.request("session-1", "myproject", "Bash", "make test", topic_id=TOPIC)
    with pytest.raises(InvalidInput):
        service.decide(tool_call.id, "revise", BY)
    assert service.status(tool_call.id).status == "pending"
