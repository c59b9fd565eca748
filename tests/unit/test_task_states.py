"""The task state machine."""

from __future__ import annotations

import pytest

from chalicelib.kernel.errors import Conflict
from chalicelib.tasks.domain.task_states import (
    TERMINAL,
    IllegalTransition,
    TaskStatus,
    after_lost_lease,
    can_transition,
    ensure_transition,
)

S = TaskStatus


@pytest.mark.parametrize(("src", "dst"), [
    (S.QUEUED, S.DISPATCHED), (S.DISPATCHED, S.RUNNING), (S.RUNNING, S.COMPLETED), (S.RUNNING, S.FAILED),
    (S.RUNNING, S.CANCELLED), (S.RUNNING, S.TIMED_OUT), (S.QUEUED, S.CANCELLED), (S.DISPATCHED, S.QUEUED),
    (S.RUNNING, S.QUEUED),
])
def test_the_documented_moves_are_allowed(src: TaskStatus, dst: TaskStatus) -> None:
    assert ensure_transition(src, dst) == dst


@pytest.mark.parametrize(("src", "dst"), [
    (S.QUEUED, S.RUNNING), (S.QUEUED, S.COMPLETED), (S.DISPATCHED, S.COMPLETED), (S.RUNNING, S.DISPATCHED),
])
def test_skipping_a_step_is_an_illegal_transition(src: TaskStatus, dst: TaskStatus) -> None:
    with pytest.raises(IllegalTransition):
        ensure_transition(src, dst)


def test_a_terminal_state_never_changes() -> None:
    for src in TERMINAL:
        assert not any(can_transition(src, dst) for dst in S)


def test_an_illegal_transition_is_a_conflict_answered_with_409() -> None:
    with pytest.raises(Conflict) as err:
        ensure_transition("completed", "running")
    assert err.value.status == 409
    assert "completed task cannot become running" in err.value.message


def test_a_lost_lease_is_retried_while_attempts_remain_then_fails() -> None:
    assert after_lost_lease(1, 2, cancel_requested=False) == S.QUEUED
    assert after_lost_lease(2, 2, cancel_requested=False) == S.FAILED


def test_a_lost_lease_after_a_cancel_request_ends_cancelled() -> None:
    assert after_lost_lease(1, 3, cancel_requested=True) == S.CANCELLED
