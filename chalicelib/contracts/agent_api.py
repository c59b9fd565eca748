"""The REST bodies between an agent machine (the agent daemon and the CLI) and the API. Stdlib only.

The agent builds its requests and reads the server's answers with these; the server validates
requests with its pydantic models (`chalicelib/tasks/routes/agent_bodies.py`, with the length
and range limits) and builds its answers with these. `tests/unit/test_agent_api_contracts.py`
holds each request to its model: same fields, types, defaults, and a lossless round trip.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, TypeVar, get_args, get_origin, get_type_hints

from chalicelib.contracts.agent_vocabulary import Engine, MachineStatus, Outcome, ResultStatus

B = TypeVar("B", bound="Body")


class Body:
    """A JSON object on the wire: `to_body()` to send it, `from_body()` to read one."""

    def to_body(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload, no-any-return]

    @classmethod
    def from_body(cls: type[B], data: dict[str, Any]) -> B:
        """Read the fields this side knows; fields added later by the other side are ignored."""
        hints = get_type_hints(cls)
        return cls(**{f.name: _decode(hints[f.name], data[f.name])  # type: ignore[arg-type]
                      for f in fields(cls) if f.name in data})  # type: ignore[arg-type]


def _decode(tp: Any, value: Any) -> Any:
    """Nested bodies (a list of events) come back as their contract, not as plain dicts."""
    item = get_args(tp)[0] if get_origin(tp) is list else None
    if isinstance(item, type) and issubclass(item, Body) and isinstance(value, list):
        return [item.from_body(v) for v in value]
    return value


@dataclass(frozen=True)
class ProgressEvent(Body):
    """One engine event, as a task or session runner posts it."""

    kind: str
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)


# Requests: machine registry, task runs, interactive sessions.
@dataclass(frozen=True)
class HeartbeatRequest(Body):  # POST /api/machines/heartbeat
    machine_id: str
    agent_instance: str
    status: MachineStatus = "online"
    active_tasks: int = 0
    max_concurrent: int = 1
    engine_priority: list[str] = field(default_factory=lambda: ["claude"])
    projects: list[str] = field(default_factory=list)
    repos: list[str] = field(default_factory=list)
    hostname: str | None = None
    agent_version: str | None = None


@dataclass(frozen=True)
class TaskClaimRequest(Body):  # POST /api/tasks/{id}/claim
    machine_id: str
    dispatch_seq: int
    agent_instance: str


@dataclass(frozen=True)
class TaskReleaseRequest(Body):  # POST /api/tasks/{id}/release
    machine_id: str
    dispatch_seq: int
    reason: str = "machine at capacity"


@dataclass(frozen=True)
class MachineRequest(Body):  # POST /api/sessions/{id}/claim; the base of a machine's requests
    machine_id: str


@dataclass(frozen=True)
class AttemptRequest(MachineRequest):  # POST /api/tasks/{id}/lease; the base of an attempt's requests
    attempt: int


@dataclass(frozen=True)
class EventsBody(Body):  # what a task's attempt or a session posts as it runs
    events: list[ProgressEvent]


@dataclass(frozen=True)
class EngineSwitchBody(Body):  # a task's attempt or a session moved to another engine
    from_engine: str
    to_engine: str
    reason: str = ""


@dataclass(frozen=True)
class TaskEventsRequest(EventsBody, AttemptRequest):  # POST /api/tasks/{id}/events
    pass


@dataclass(frozen=True)
class EngineSwitchRequest(EngineSwitchBody, AttemptRequest):  # POST /api/tasks/{id}/engine-switch
    pass


@dataclass(frozen=True, kw_only=True)
class TaskResult(Body):
    """What an attempt ended with: the agent reports it, the server keeps it on the task."""

    status: ResultStatus
    summary: str = ""
    files_changed: list[str] = field(default_factory=list)
    exit_code: int | None = None
    cost_usd: float | None = None
    engine: str | None = None
    worktree: str | None = None
    branch: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class TaskResultRequest(TaskResult, AttemptRequest):  # POST /api/tasks/{id}/result: the attempt, its result
    pass


@dataclass(frozen=True)
class TaskOutcomeRequest(Body):  # POST /api/tasks/{id}/outcome
    attempt: int
    outcome: Outcome
    engine: str | None = None
    summary: str = ""
    files_changed: list[str] = field(default_factory=list)
    cost_usd: float | None = None
    duration_s: float | None = None


@dataclass(frozen=True)
class SessionEventsRequest(EventsBody, MachineRequest):  # POST /api/sessions/{id}/events
    pass


@dataclass(frozen=True)
class SessionSwitchRequest(EngineSwitchBody, MachineRequest):  # POST /api/sessions/{id}/engine-switch
    pass


@dataclass(frozen=True)
class FolderEntry(Body):
    """One folder in a listing: its name (a root's full path at the top) and whether it is a git repo."""

    name: str
    repo: bool = False


@dataclass(frozen=True)
class FolderListingRequest(MachineRequest):  # POST /api/machines/{id}/folders/{listing_id}: what it found
    path: str  # "" is the top: the machine's configured roots
    parent: str | None  # "" for a root (up goes to the top); None at the top or on error
    entries: list[FolderEntry] = field(default_factory=list)
    total: int = 0
    offset: int = 0
    error: str | None = None


@dataclass(frozen=True)
class ResumableEntry(Body):
    """A terminal session an engine can resume: its id in that engine's own session store."""

    engine: str
    session_id: str
    cwd: str
    last_active: str  # ISO 8601
    first_message: str = ""
    last_message: str = ""


@dataclass(frozen=True)
class ResumableListingRequest(MachineRequest):  # POST /api/machines/{id}/resumable/{listing_id}
    path: str  # the folder asked about; "" every configured folder
    sessions: list[ResumableEntry] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class SessionEndedRequest(MachineRequest):  # POST /api/sessions/{id}/ended
    exit_code: int | None = None
    error: str | None = None


@dataclass(frozen=True)
class SessionStartRequest(Body):  # POST /api/sessions (the CLI)
    prompt: str
    project: str
    machine: str | None = None
    repo: str | None = None
    engine: str = "claude"
    telegram_chat_id: int | None = None
    telegram_topic_id: int | None = None
    resume: str | None = None  # the engine's own session id to continue (/continue)
    permission_mode: Literal["plan"] | None = None  # Claude only: its plan is approved in the topic first


@dataclass(frozen=True)
class SessionInputRequest(Body):  # POST /api/sessions/{id}/input (the CLI)
    text: str


@dataclass(frozen=True)
class NewTaskRequest(Body):  # POST /api/tasks (the CLI)
    description: str
    project: str
    repo: str | None = None
    engine: Engine | None = None
    machine: str | None = None
    time_budget_s: int = 1800
    cost_budget_usd: float | None = None
    max_attempts: int = 2
    telegram_chat_id: int | None = None
    telegram_topic_id: int | None = None
    idempotency_key: str | None = None


# Answers the agent reads.
@dataclass(frozen=True)
class Registration(Body):  # the heartbeat's answer: where the machine's queue is
    machine_id: str
    queue_url: str
    sqs_endpoint_url: str | None  # the local moto server; None on AWS
    region: str
    heartbeat_s: float
    offline_after_s: float
    recovered_tasks: list[str] = field(default_factory=list)
    engine_priority: list[str] | None = None  # set on the server (/engines): the agent adopts it
    restart: dict[str, str] | None = None  # {"id", "kind": update|restart}: drain, (update,) restart


@dataclass(frozen=True)
class QueueCredentialsAnswer(Body):  # POST /api/machines/{machine_id}/credentials: its own queue only
    access_key_id: str
    secret_access_key: str = field(repr=False)
    session_token: str = field(repr=False)
    expires_at: str  # ISO 8601, UTC


@dataclass(frozen=True)
class TaskClaim(Body):  # the claim's answer: the task (its JSON), this attempt and its lease
    task: dict[str, Any]
    prompt: str
    attempt: int
    lease_s: float
    max_switches: int


@dataclass(frozen=True)
class LeaseState(Body):  # the lease's answer, which also carries cancellation
    keep_running: bool
    status: str
    cancel_requested: bool
    lease_s: float


@dataclass(frozen=True)
class SessionClaim(Body):  # a session's claim answer: the session and the inputs stored so far
    session: dict[str, Any]
    inputs: list[dict[str, Any]]
