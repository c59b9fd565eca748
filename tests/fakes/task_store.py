"""Task orchestration in memory: the tasks unit of work and its repositories, for unit tests.

`InMemoryTasksUnitOfWork` keeps the same promises as the Postgres one: changes are visible
only through its repositories, a unit left without `commit()` rolls back (the tables are
restored), and after-commit actions run only once it has committed. Time comes from `clock`,
so a test moves it instead of sleeping. The shared contract suite
(tests/integration/test_task_repository_contract.py) holds these fakes to the Postgres ones.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from types import TracebackType
from typing import Any, Self

from chalicelib.kernel.unit_of_work import Claims, InMemoryUnitOfWork
from chalicelib.tasks.domain.task_model import NewEvent, NewTask, Task, TaskEvent, TaskOutcome, TaskResult
from chalicelib.tasks.domain.task_states import TaskStatus
from chalicelib.tasks.services.ports import (
    AgentSessions,
    Machines,
    TaskEvents,
    TaskOutcomes,
    Tasks,
    TaskSpending,
)
from tests.fakes.task_fleet import FakeAgentSessions, FakeMachines
from tests.fakes.task_spending import FakeTaskSpending
from tests.fakes.task_tables import TaskStore, TaskTables


class FakeTasks:
    def __init__(self, store: TaskStore) -> None:
        self._s = store

    @property
    def _rows(self) -> dict[str, Task]:
        return self._s.tables.tasks

    def insert(self, task_id: str, new: NewTask) -> tuple[Task, bool]:
        if new.idempotency_key is not None:
            for task in self._rows.values():
                if task.idempotency_key == new.idempotency_key:
                    return task, False
        now = self._s.clock()
        task = Task(task_id, new.project, new.description, TaskStatus.QUEUED, repo=new.repo,
                    engine=new.engine, current_engine=new.engine, target_machine=new.target_machine,
                    time_budget_s=new.time_budget_s, cost_budget_usd=new.cost_budget_usd,
                    max_attempts=new.max_attempts, telegram_chat_id=new.telegram_chat_id,
                    telegram_topic_id=new.telegram_topic_id, idempotency_key=new.idempotency_key,
                    engine_options=dict(new.engine_options), created_at=now, updated_at=now)
        self._rows[task_id] = task
        return task, True

    def get(self, task_id: str, *, for_update: bool = False) -> Task | None:
        return self._rows.get(task_id)

    def ids_with_prefix(self, prefix: str) -> list[str]:
        return [i for i in self._rows if i.startswith(prefix.lower())][:2]

    def search(self, *, status: str | None, project: str | None, machine: str | None,
               limit: int) -> list[Task]:
        found = [t for t in self._rows.values() if (status is None or t.status == status)
                 and (project is None or t.project == project)
                 and (machine is None or t.machine_id == machine)]
        return sorted(found, key=lambda t: t.created_at or self._s.clock(), reverse=True)[:limit]

    def update(self, task_id: str, *, where_status: tuple[str, ...], where: dict[str, Any] | None = None,
               **values: Any) -> Task | None:
        task = self._rows.get(task_id)
        if task is None or task.status.value not in where_status:
            return None
        if any(getattr(task, column) != value for column, value in (where or {}).items()):
            return None
        if "status" in values:
            values["status"] = TaskStatus(values["status"])
        if "files_changed" in values:
            values["files_changed"] = tuple(values["files_changed"])
        updated = replace(task, **values, updated_at=self._s.clock())
        self._rows[task_id] = updated
        return updated

    def mark_dispatched(self, task_id: str, machine_id: str) -> Task | None:
        task = self._rows.get(task_id)
        seq = task.dispatch_seq + 1 if task else 0
        return self.update(task_id, where_status=("queued",), status="dispatched", machine_id=machine_id,
                           dispatch_seq=seq, dispatched_at=self._s.clock())

    def claim(self, task_id: str, machine_id: str, dispatch_seq: int, agent_instance: str,
              lease_s: float) -> Task | None:
        task, now = self._rows.get(task_id), self._s.clock()
        return self.update(task_id, where_status=("dispatched",),
                           where={"machine_id": machine_id, "dispatch_seq": dispatch_seq}, status="running",
                           attempts=(task.attempts + 1 if task else 0), agent_instance=agent_instance,
                           lease_expires_at=now + timedelta(seconds=lease_s), started_at=now)

    def renew_lease(self, task_id: str, machine_id: str, attempt: int, lease_s: float) -> Task | None:
        return self.update(task_id, where_status=("running",),
                           where={"machine_id": machine_id, "attempts": attempt},
                           lease_expires_at=self._s.clock() + timedelta(seconds=lease_s))

    def finish(self, task_id: str, machine_id: str, attempt: int, result: TaskResult) -> Task | None:
        return self.update(
            task_id, where_status=("running",), where={"machine_id": machine_id, "attempts": attempt},
            status=TaskStatus(result.status), result_summary=result.summary,
            files_changed=tuple(result.files_changed),
            exit_code=result.exit_code, cost_usd=result.cost_usd, error=result.error,
            worktree=result.worktree, branch=result.branch, lease_expires_at=None,
            finished_at=self._s.clock())

    def queued_ids(self, per_machine: int, machines: Sequence[str]) -> list[str]:
        queued = sorted((t for t in self._rows.values() if t.status == TaskStatus.QUEUED
                         and (t.target_machine is None or t.target_machine in machines)),
                        key=lambda t: (t.created_at or self._s.clock(), t.id))
        taken: dict[tuple[str | None, str], int] = {}
        out = []
        for task in queued:
            group = (task.target_machine, task.project)
            taken[group] = taken.get(group, 0) + 1
            if taken[group] <= per_machine:
                out.append(task.id)
        return out

    def lost_leases(self, limit: int = 100) -> list[Task]:
        now = self._s.clock()
        lost = [t for t in self._running() if t.lease_expires_at is not None and t.lease_expires_at < now]
        return sorted(lost, key=lambda t: t.lease_expires_at or now)[:limit]

    def orphans_of(self, machine_id: str, live_instance: str | None) -> list[Task]:
        return [t for t in self._running()
                if t.machine_id == machine_id and t.agent_instance != live_instance]

    def overdue(self, grace_s: float, limit: int = 100) -> list[Task]:
        now = self._s.clock()
        return [t for t in self._running() if t.started_at is not None
                and t.started_at + timedelta(seconds=t.time_budget_s + grace_s) < now][:limit]

    def dispatched_to(self, machine_id: str) -> list[Task]:
        return [t for t in self._rows.values()
                if t.status == TaskStatus.DISPATCHED and t.machine_id == machine_id]

    def stuck_dispatched(self, older_than_s: float, limit: int = 100) -> list[Task]:
        cutoff = self._s.clock() - timedelta(seconds=older_than_s)
        return [t for t in self._rows.values() if t.status == TaskStatus.DISPATCHED
                and t.dispatched_at is not None and t.dispatched_at < cutoff][:limit]

    def _running(self) -> list[Task]:
        return [t for t in self._rows.values() if t.status == TaskStatus.RUNNING]


class FakeTaskEvents:
    def __init__(self, store: TaskStore) -> None:
        self._s = store

    def append(self, task_id: str, attempt: int, events: Sequence[NewEvent]) -> list[TaskEvent]:
        log = self._s.tables.task_events.setdefault(task_id, [])
        added = [TaskEvent(task_id, len(log) + i + 1, e.kind, e.text, dict(e.data), attempt, self._s.clock())
                 for i, e in enumerate(events)]
        log.extend(added)
        return added

    def since(self, task_id: str, *, after: int, limit: int) -> list[TaskEvent]:
        return [e for e in self._s.tables.task_events.get(task_id, []) if e.seq > after][:limit]


class FakeTaskClaims:
    def __init__(self, store: TaskStore) -> None:
        self._s = store

    def claim(self, consumer: str, key: str) -> bool:
        if (consumer, key) in self._s.tables.claims:
            return False
        self._s.tables.claims.add((consumer, key))
        return True


class FakeTaskOutcomes:
    def __init__(self, store: TaskStore) -> None:
        self._s = store

    def record(self, outcome: TaskOutcome) -> bool:
        key = (outcome.task_id, outcome.attempt)
        if key in self._s.tables.outcomes:
            return False
        self._s.tables.outcomes[key] = outcome
        return True


class InMemoryTasksUnitOfWork(InMemoryUnitOfWork):
    """One unit over `store`; a test builds its factory with `lambda: InMemoryTasksUnitOfWork(store)`."""

    def __init__(self, store: TaskStore) -> None:
        super().__init__()
        self.store = store
        self.tasks: Tasks = FakeTasks(store)
        self.events: TaskEvents = FakeTaskEvents(store)
        self.outcomes: TaskOutcomes = FakeTaskOutcomes(store)
        self.machines: Machines = FakeMachines(store)
        self.sessions: AgentSessions = FakeAgentSessions(store)
        self.claims: Claims = FakeTaskClaims(store)
        self.spending: TaskSpending = FakeTaskSpending(store)
        self.dispatch_locks = 0
        self._before: TaskTables | None = None

    def lock_dispatch(self) -> None:
        self.dispatch_locks += 1

    def __enter__(self) -> Self:
        self._before = copy.deepcopy(self.store.tables)
        return super().__enter__()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if not self.committed:
            assert self._before is not None
            self.store.tables = self._before  # rolled back
        super().__exit__(exc_type, exc, tb)
