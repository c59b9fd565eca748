"""The in-memory tables behind the fake tasks unit of work (tests/fakes/task_store.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from chalicelib.tasks.domain.agent_session_states import AgentSession
from chalicelib.tasks.domain.task_budget import BudgetCaps
from chalicelib.tasks.domain.task_model import Task, TaskEvent, TaskOutcome
from chalicelib.tasks.domain.task_states import TaskStatus

ACTIVE = {TaskStatus.DISPATCHED, TaskStatus.RUNNING}


class FakeClock:
    """A clock a test moves by hand."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2025, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class TaskTables:
    tasks: dict[str, Task] = field(default_factory=dict)
    task_events: dict[str, list[TaskEvent]] = field(default_factory=dict)
    outcomes: dict[tuple[str, int], TaskOutcome] = field(default_factory=dict)
    machines: dict[str, dict[str, Any]] = field(default_factory=dict)
    sessions: dict[str, AgentSession] = field(default_factory=dict)
    session_events: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    claims: set[tuple[str, str]] = field(default_factory=set)
    budget_caps: dict[int, BudgetCaps] = field(default_factory=dict)
    task_spend: dict[tuple[str, int], float] = field(default_factory=dict)
    daily_spend: dict[tuple[int, date], float] = field(default_factory=dict)

    def assigned(self, machine_id: str) -> int:
        return sum(1 for t in self.tasks.values() if t.machine_id == machine_id and t.status in ACTIVE)


class TaskStore:
    """What the unit of work reads and writes: the tables and the clock."""

    def __init__(self, clock: Callable[[], datetime] | None = None) -> None:
        self.tables = TaskTables()
        self.clock: Callable[[], datetime] = clock or FakeClock()


