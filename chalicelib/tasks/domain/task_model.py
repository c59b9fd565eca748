"""Task records as the services see them (frozen), and their JSON form for the API."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from chalicelib.contracts.agent_api import TaskResult as TaskResult  # one declaration: the agent reports it
from chalicelib.contracts.json_records import JsonRecord
from chalicelib.contracts.repo_source import RepoRefused, repo_source
from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.redaction import redact, redact_json
from chalicelib.tasks.domain.task_states import TaskStatus

DEFAULT_TIME_BUDGET_S = 1800
DEFAULT_MAX_ATTEMPTS = 2


def check_repo(repo: str | None) -> None:
    """Refuse a repo no machine may take (contracts/repo_source.py); none means the project's own."""
    if repo:
        try:
            repo_source(repo)
        except RepoRefused as exc:
            raise InvalidInput(str(exc), field="repo") from None


@dataclass(frozen=True)
class NewTask:
    project: str
    description: str
    repo: str | None = None
    engine: str | None = None
    target_machine: str | None = None
    time_budget_s: int = DEFAULT_TIME_BUDGET_S
    cost_budget_usd: float | None = None
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    telegram_chat_id: int | None = None
    telegram_topic_id: int | None = None
    idempotency_key: str | None = None
    engine_options: dict[str, Any] = field(default_factory=dict)  # see agent/engines/definitions.py

    def __post_init__(self) -> None:
        # A user's description is stored and echoed in the `created` event: never a secret.
        object.__setattr__(self, "description", redact(self.description))


@dataclass(frozen=True)
class Task(JsonRecord):
    id: str
    project: str
    description: str
    status: TaskStatus
    repo: str | None = None
    engine: str | None = None
    current_engine: str | None = None
    target_machine: str | None = None
    machine_id: str | None = None
    time_budget_s: int = DEFAULT_TIME_BUDGET_S
    cost_budget_usd: float | None = None
    attempts: int = 0
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    dispatch_seq: int = 0
    engine_switches: int = 0
    cancel_requested: bool = False
    agent_instance: str | None = None
    lease_expires_at: datetime | None = None
    worktree: str | None = None
    branch: str | None = None
    result_summary: str | None = None
    files_changed: tuple[str, ...] = ()
    exit_code: int | None = None
    cost_usd: float | None = None
    error: str | None = None
    telegram_chat_id: int | None = None
    telegram_topic_id: int | None = None
    idempotency_key: str | None = None
    engine_options: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    dispatched_at: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None


@dataclass(frozen=True)
class TaskEvent(JsonRecord):
    task_id: str
    seq: int
    kind: str
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    attempt: int = 0
    created_at: datetime | None = None


@dataclass(frozen=True)
class NewEvent:
    """An event about to be stored: its text and data are redacted on construction, whoever
    makes it (engine output, a user's input, a reason an agent gives)."""

    kind: str
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", redact(self.text))
        object.__setattr__(self, "data", redact_json(self.data))


@dataclass(frozen=True)
class TaskOutcome:
    task_id: str
    attempt: int
    project: str
    outcome: str  # success | failure | cancelled
    engine: str | None = None
    summary: str = ""
    files_changed: tuple[str, ...] = ()
    cost_usd: float | None = None
    duration_s: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "summary", redact(self.summary))


def redacted(events: Sequence[NewEvent]) -> list[NewEvent]:
    """Events as they are stored (a NewEvent is already redacted when it is made)."""
    return list(events)
