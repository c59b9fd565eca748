"""Task services over the in-memory unit of work, for unit tests: one store, one clock, the
recording queues and publisher, and the services built the way bootstrap.py builds them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chalicelib.tasks.domain.machine_records import Heartbeat
from chalicelib.tasks.domain.task_budget import BudgetCaps
from chalicelib.tasks.domain.task_model import NewTask, Task, TaskEvent
from chalicelib.tasks.services.agent_sessions import AgentSessionService
from chalicelib.tasks.services.dispatch import TaskDispatcher
from chalicelib.tasks.services.machines import MachineRegistry
from chalicelib.tasks.services.task_budgets import TaskBudgets
from chalicelib.tasks.services.task_deps import TaskDeps
from chalicelib.tasks.services.task_policy import TaskPolicy
from chalicelib.tasks.services.task_runs import TaskRunService
from chalicelib.tasks.services.task_sweep import TaskSweeper
from chalicelib.tasks.services.tasks import TaskService
from tests.fakes.task_messages import (
    EchoEnricher,
    RecordingOutcomeListener,
    RecordingPublisher,
    RecordingTaskQueues,
)
from tests.fakes.task_store import InMemoryTasksUnitOfWork
from tests.fakes.task_tables import FakeClock, TaskStore

ADMIN_USER = 900  # the Telegram user who may set others' cost caps


@dataclass
class TaskWorld:
    policy: TaskPolicy = field(default_factory=TaskPolicy)
    clock: FakeClock = field(default_factory=FakeClock)
    queues: RecordingTaskQueues = field(default_factory=RecordingTaskQueues)
    publisher: RecordingPublisher = field(default_factory=RecordingPublisher)
    outcomes: RecordingOutcomeListener = field(default_factory=RecordingOutcomeListener)

    def __post_init__(self) -> None:
        self.store = TaskStore(self.clock)
        self.units: list[InMemoryTasksUnitOfWork] = []
        deps = TaskDeps(self._unit, self.queues, self.policy, self.publisher, self.clock)
        self.tasks = TaskService(deps)
        self.dispatcher = TaskDispatcher(deps)
        self.runs = TaskRunService(deps, EchoEnricher(), self.outcomes)
        self.machines = MachineRegistry(deps, sqs_endpoint_url=None, region="us-east-1")
        self.sweeper = TaskSweeper(deps)
        self.sessions = AgentSessionService(deps)
        self.budgets = TaskBudgets(deps, self.tasks, BudgetCaps(5.0, 20.0), admins=(ADMIN_USER,))

    def _unit(self) -> InMemoryTasksUnitOfWork:
        unit = InMemoryTasksUnitOfWork(self.store)
        self.units.append(unit)
        return unit

    def heartbeat(self, machine_id: str, *, instance: str | None = None, status: str = "online",
                  max_concurrent: int = 2, projects: tuple[str, ...] = (), active_tasks: int = 0) -> None:
        self.machines.heartbeat(Heartbeat(machine_id, status, instance or f"i-{machine_id}", active_tasks,
                                          max_concurrent, ("claude", "codex"), projects, ()))

    def create(self, description: str = "fix the bug", project: str = "web", **fields: Any) -> Task:
        return self.tasks.create(NewTask(project, description, **fields))

    def running(self, machine_id: str = "m1", **fields: Any) -> Task:
        """A task dispatched to `machine_id` and claimed there (its first attempt)."""
        task = self.create(**fields)
        self.dispatcher.dispatch(task.id)
        dispatched = self.tasks.get(task.id)
        assert dispatched.machine_id == machine_id, dispatched
        return self.runs.claim(task.id, machine_id, dispatched.dispatch_seq, f"i-{machine_id}").task

    def task(self, task_id: str) -> Task:
        return self.tasks.get(task_id)

    def events(self, task_id: str) -> list[TaskEvent]:
        return self.tasks.events(task_id)

    def event_kinds(self, task_id: str) -> list[str]:
        return [e.kind for e in self.events(task_id)]
