"""The ports of task orchestration: the unit of work and its repositories, and the outside world.

The repositories are bound to one transaction by the unit of work (`adapters/postgres_tasks_uow.py`
in production, `tests/fakes/task_store.py` in unit tests). Every status change is conditional
(`where_status`, `where`), so two callers racing on one task cannot both win: the loser gets None.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, Protocol

from chalicelib.kernel.unit_of_work import Claims, UnitOfWork
from chalicelib.tasks.domain.agent_session_states import AgentSession, SessionStatus
from chalicelib.tasks.domain.machine_records import Heartbeat, MachineRecord
from chalicelib.tasks.domain.queue_credentials import QueueCredentials
from chalicelib.tasks.domain.task_budget import BudgetCaps, Cap
from chalicelib.tasks.domain.task_model import NewEvent, NewTask, Task, TaskEvent, TaskOutcome, TaskResult


class Tasks(Protocol):
    def insert(self, task_id: str, new: NewTask) -> tuple[Task, bool]:
        """Insert a queued task; with an idempotency key already used, return (existing, False)."""
        ...

    def get(self, task_id: str, *, for_update: bool = False) -> Task | None: ...
    def ids_with_prefix(self, prefix: str) -> list[str]: ...
    def search(self, *, status: str | None, project: str | None, machine: str | None,
               limit: int) -> list[Task]: ...

    def update(self, task_id: str, *, where_status: tuple[str, ...], where: dict[str, Any] | None = None,
               **values: Any) -> Task | None:
        """Set `values` (Task fields) if the task is in one of `where_status` and matches `where`."""
        ...

    def mark_dispatched(self, task_id: str, machine_id: str) -> Task | None:
        """queued -> dispatched to `machine_id`, with the next dispatch_seq."""
        ...

    def claim(self, task_id: str, machine_id: str, dispatch_seq: int, agent_instance: str,
              lease_s: float) -> Task | None:
        """dispatched -> running (next attempt) for the machine and dispatch it was sent with."""
        ...

    def renew_lease(self, task_id: str, machine_id: str, attempt: int, lease_s: float) -> Task | None: ...
    def finish(self, task_id: str, machine_id: str, attempt: int, result: TaskResult) -> Task | None: ...
    def queued_ids(self, per_machine: int, machines: Sequence[str]) -> list[str]:
        """Queued tasks, oldest first: at most `per_machine` of each project for each of `machines`,
        and as many of each project's tasks for any machine (so no backlog hides another's task)."""
        ...

    def lost_leases(self, limit: int = 100) -> list[Task]:
        """Running tasks whose lease ran out (locked; a concurrent sweep skips them)."""
        ...

    def orphans_of(self, machine_id: str, live_instance: str | None) -> list[Task]:
        """Running tasks of a machine claimed by an agent process other than `live_instance`."""
        ...

    def overdue(self, grace_s: float, limit: int = 100) -> list[Task]:
        """Running tasks past their time budget plus `grace_s`."""
        ...

    def dispatched_to(self, machine_id: str) -> list[Task]:
        """Tasks dispatched to the machine that it has not claimed (locked)."""
        ...

    def stuck_dispatched(self, older_than_s: float, limit: int = 100) -> list[Task]: ...


class TaskEvents(Protocol):
    def append(self, task_id: str, attempt: int, events: Sequence[NewEvent]) -> list[TaskEvent]:
        """Append with the task's next sequence numbers."""
        ...

    def since(self, task_id: str, *, after: int, limit: int) -> list[TaskEvent]: ...


class TaskOutcomes(Protocol):
    def record(self, outcome: TaskOutcome) -> bool:
        """Keep one attempt's outcome; False if that attempt was already recorded."""
        ...


class TaskSpending(Protocol):
    """Chat users' cost caps and what tasks spent (per attempt, and per user and UTC day)."""

    def caps(self, user_id: int) -> BudgetCaps:
        """The user's own caps (None where unset)."""
        ...

    def set_cap(self, user_id: int, cap: Cap, usd: float) -> None: ...
    def spent_on(self, user_id: int, day: date) -> float: ...
    def task_spent(self, task_id: str) -> float: ...
    def record(self, task_id: str, attempt: int, total: float, user_id: int | None, day: date) -> float:
        """Raise the attempt's spend to the running `total` and the user's `day` by as much; return
        what was added (0 for a total not above the recorded one: a retried report)."""
        ...


class Machines(Protocol):
    def record_heartbeat(self, hb: Heartbeat) -> tuple[str | None, str | None]:
        """Upsert the machine; return (previous agent instance, queue URL) as stored before."""
        ...

    def set_queue_url(self, machine_id: str, url: str) -> None: ...
    def set_paused(self, machine_id: str, paused: bool) -> bool:
        """Pause or resume a registered machine; False if no such machine."""
        ...

    def records(self, machine_id: str | None = None) -> list[MachineRecord]:
        """Every machine (or one), with the count of tasks dispatched to or running on it."""
        ...


class AgentSessions(Protocol):
    def insert(self, session_id: str, *, machine_id: str, project: str, repo: str | None, engine: str,
               telegram_chat_id: int | None, telegram_topic_id: int | None,
               resume_id: str | None = None, permission_mode: str | None = None) -> AgentSession: ...
    def get(self, session_id: str, *, for_update: bool = False) -> AgentSession | None: ...
    def search(self, *, machine: str | None, status: str | None, limit: int) -> list[AgentSession]: ...
    def set_status(self, session_id: str, status: SessionStatus, *, exit_code: int | None = None,
                   error: str | None = None) -> AgentSession: ...
    def next_input_seq(self, session_id: str) -> int: ...
    def append_events(self, session_id: str, events: Sequence[NewEvent]) -> int:
        """Append with the session's next sequence numbers; return the last one."""
        ...

    def events(self, session_id: str, *, after: int, limit: int,
               kind: str | None = None) -> list[dict[str, Any]]: ...
    def open_on_machine(self, machine_id: str) -> list[AgentSession]: ...


class TasksUnitOfWork(UnitOfWork, Protocol):
    tasks: Tasks
    events: TaskEvents
    outcomes: TaskOutcomes
    machines: Machines
    sessions: AgentSessions
    claims: Claims
    spending: TaskSpending

    def lock_dispatch(self) -> None:
        """Serialise dispatch decisions until the end of the transaction (one machine slot, one task)."""
        ...


class TaskQueues(Protocol):
    def send_dispatch(self, task_id: str) -> None: ...
    def ensure_machine_queue(self, machine_id: str) -> str: ...
    def send_to_machine(self, machine_id: str, body: dict[str, Any]) -> None: ...


class QueueCredentialIssuer(Protocol):
    def issue(self, session_name: str, policy: Mapping[str, Any], duration_s: int) -> QueueCredentials:
        """Credentials of the deployment's machine role, narrowed by `policy`, for `duration_s`."""
        ...

    def queue_arn(self, machine_id: str) -> str | None:
        """The ARN of the machine's queue; None if it has none yet."""
        ...


class PromptEnricher(Protocol):
    def enrich(self, prompt: str, project: str, task_id: str | None = None) -> str:
        """Return the prompt an engine should get for a task of `project`."""
        ...


class OutcomeListener(Protocol):
    def recorded(self, outcome: TaskOutcome, task: Task | None = None) -> None:
        """Told once about each newly recorded attempt outcome, after commit, with the task as it
        stood then (its description, result and error: the learning loop reads them)."""
        ...


class TaskEventPublisher(Protocol):
    """Told about task and session events after they are committed (the Telegram topic streams).

    Runs on the request path of the agent's event posts: hand slow work to a queue.
    """

    def published(self, ref_id: str, events: Sequence[Mapping[str, Any]], *, kind: str = "task") -> None: ...

    def finished(self, ref_id: str, status: str, summary: str, *, kind: str = "task",
                 files_changed: Sequence[str] = ()) -> None: ...


class NullTaskEventPublisher:
    def published(self, ref_id: str, events: Sequence[Mapping[str, Any]], *, kind: str = "task") -> None:
        return None

    def finished(self, ref_id: str, status: str, summary: str, *, kind: str = "task",
                 files_changed: Sequence[str] = ()) -> None:
        return None
