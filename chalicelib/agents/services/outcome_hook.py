"""The tasks' outcome listener, extended: after the learning loop hears a task's outcome, the
subagent run the task belonged to (if any) is finished at once, without waiting for the
lifecycle worker's next pass."""

from __future__ import annotations

from typing import Protocol

from chalicelib.agents.services.lifecycle import SubagentLifecycle
from chalicelib.kernel.logging import get_logger
from chalicelib.tasks.domain.task_model import Task, TaskOutcome


class OutcomeListener(Protocol):
    def recorded(self, outcome: TaskOutcome, task: Task | None = None) -> None: ...


class RunOutcomeHook:
    def __init__(self, inner: OutcomeListener, lifecycle: SubagentLifecycle) -> None:
        self._inner, self._lifecycle = inner, lifecycle

    def recorded(self, outcome: TaskOutcome, task: Task | None = None) -> None:
        try:
            self._inner.recorded(outcome, task)
        finally:
            try:
                self._lifecycle.finish_task(outcome.task_id)
            except Exception:  # the lifecycle worker finishes it on its next pass
                get_logger().exception("subagent run not finished on its outcome",
                                       extra={"task_id": outcome.task_id})
