"""The task state machine: which status may follow which, and what a lost lease leads to.

    queued -> dispatched -> running -> completed | failed | cancelled | timed_out

Side edges: a dispatched task goes back to queued when its machine cannot take it, and a
running task goes back to queued when its agent stopped renewing the lease and attempts
remain. Terminal states never change.
"""

from __future__ import annotations

from enum import StrEnum

from chalicelib.kernel.errors import Conflict


class TaskStatus(StrEnum):
    QUEUED = "queued"
    DISPATCHED = "dispatched"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"

    @property
    def terminal(self) -> bool:
        return self in TERMINAL


TERMINAL = frozenset({TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED,
                      TaskStatus.TIMED_OUT})

_ALLOWED: dict[TaskStatus, frozenset[TaskStatus]] = {
    TaskStatus.QUEUED: frozenset({TaskStatus.DISPATCHED, TaskStatus.CANCELLED, TaskStatus.FAILED}),
    TaskStatus.DISPATCHED: frozenset({TaskStatus.RUNNING, TaskStatus.QUEUED, TaskStatus.CANCELLED,
                                      TaskStatus.FAILED}),
    TaskStatus.RUNNING: frozenset({TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED,
                                   TaskStatus.TIMED_OUT, TaskStatus.QUEUED}),
}

# What an agent may report as the end of an attempt.
RESULT_STATUSES = frozenset({TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED,
                             TaskStatus.TIMED_OUT})


class IllegalTransition(Conflict):
    code = "illegal_transition"


def can_transition(current: TaskStatus, target: TaskStatus) -> bool:
    return target in _ALLOWED.get(current, frozenset())


def ensure_transition(current: TaskStatus | str, target: TaskStatus | str) -> TaskStatus:
    """Return `target` as a status if the move is legal; raise IllegalTransition (409) if not."""
    src, dst = TaskStatus(current), TaskStatus(target)
    if not can_transition(src, dst):
        raise IllegalTransition(f"a {src.value} task cannot become {dst.value}")
    return dst


def after_lost_lease(attempts: int, max_attempts: int, cancel_requested: bool) -> TaskStatus:
    """Where a running task goes when its agent vanished: retry while attempts remain."""
    if cancel_requested:
        return TaskStatus.CANCELLED
    return TaskStatus.QUEUED if attempts < max_attempts else TaskStatus.FAILED
