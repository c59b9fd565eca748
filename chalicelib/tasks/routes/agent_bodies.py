"""The request models of the routes the agent daemon calls, with their limits.

Each names (`mirrors`) the stdlib contract of `chalicelib/contracts/agent_api.py` the agent
builds it with: same fields, types and defaults, checked by `tests/unit/test_agent_api_contracts.py`.
The contracts themselves are imported where an answer is built, not here: building their
dataclasses would cost every cold start.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from chalicelib.contracts.agent_vocabulary import MachineStatus, Outcome, ResultStatus
from chalicelib.kernel.http import WireModel
from chalicelib.kernel.wire import CapturedJson, Count, Int32, Money, Seconds, captured

MachineId = Field(min_length=1, max_length=100)
Attempt = Annotated[int, Field(ge=1, le=2**31 - 1)]
Engine = Field(default=None, max_length=40)
Files = list[Annotated[str, captured(4000)]]


class EventBody(WireModel):
    mirrors: ClassVar[str] = "ProgressEvent"
    kind: str = Field(min_length=1, max_length=40)
    text: Annotated[str, captured(20_000)] = ""
    data: CapturedJson = Field(default_factory=dict)


class HeartbeatBody(WireModel):
    mirrors: ClassVar[str] = "HeartbeatRequest"
    machine_id: str = Field(min_length=1, max_length=40)
    agent_instance: str = Field(min_length=1, max_length=100)
    status: MachineStatus = "online"
    active_tasks: Count = 0
    max_concurrent: int = Field(default=1, ge=0, le=64)
    engine_priority: list[str] = Field(default_factory=lambda: ["claude"], max_length=10)
    projects: list[str] = Field(default_factory=list, max_length=500)
    repos: list[str] = Field(default_factory=list, max_length=500)
    hostname: str | None = Field(default=None, max_length=255)
    agent_version: str | None = Field(default=None, max_length=50)


class ClaimBody(WireModel):
    mirrors: ClassVar[str] = "TaskClaimRequest"
    machine_id: str = MachineId
    dispatch_seq: Count
    agent_instance: str = Field(min_length=1, max_length=100)


class ReleaseBody(WireModel):
    mirrors: ClassVar[str] = "TaskReleaseRequest"
    machine_id: str = MachineId
    dispatch_seq: Count
    reason: str = Field(default="machine at capacity", max_length=2000)


class MachineBody(WireModel):
    mirrors: ClassVar[str] = "MachineRequest"
    machine_id: str = MachineId


class AttemptBody(MachineBody):
    mirrors: ClassVar[str] = "AttemptRequest"
    attempt: Attempt


class _Events(WireModel):
    """The progress events a task's attempt or a session reports."""

    events: list[EventBody] = Field(max_length=500)


class _EngineSwitch(WireModel):
    """The engine a task's attempt or a session moves from and to, and why."""

    from_engine: str = Field(min_length=1, max_length=40)
    to_engine: str = Field(min_length=1, max_length=40)
    reason: Annotated[str, captured(2000)] = ""


class EventsBody(_Events, AttemptBody):
    mirrors: ClassVar[str] = "TaskEventsRequest"


class SwitchBody(_EngineSwitch, AttemptBody):
    mirrors: ClassVar[str] = "EngineSwitchRequest"


class ResultBody(AttemptBody):
    mirrors: ClassVar[str] = "TaskResultRequest"
    status: ResultStatus
    summary: Annotated[str, captured(20_000)] = ""
    files_changed: Files = Field(default_factory=list, max_length=5000)
    exit_code: Int32 | None = None
    cost_usd: Money | None = None
    engine: str | None = Engine
    worktree: Annotated[str, captured(2000)] | None = None
    branch: Annotated[str, captured(300)] | None = None
    error: Annotated[str, captured(20_000)] | None = None


class OutcomeBody(WireModel):
    mirrors: ClassVar[str] = "TaskOutcomeRequest"
    attempt: Attempt
    outcome: Outcome
    engine: str | None = Engine
    summary: Annotated[str, captured(20_000)] = ""
    files_changed: Files = Field(default_factory=list, max_length=5000)
    cost_usd: Money | None = None
    duration_s: Seconds | None = None


class SessionEventsBody(_Events, MachineBody):
    mirrors: ClassVar[str] = "SessionEventsRequest"


class SessionSwitchBody(_EngineSwitch, MachineBody):
    mirrors: ClassVar[str] = "SessionSwitchRequest"


class FolderEntryBody(WireModel):
    mirrors: ClassVar[str] = "FolderEntry"
    name: str = Field(min_length=1, max_length=4096)
    repo: bool = False


class FolderListingBody(MachineBody):
    mirrors: ClassVar[str] = "FolderListingRequest"
    path: str = Field(max_length=4096)
    parent: str | None = Field(default=..., max_length=4096)
    entries: list[FolderEntryBody] = Field(default_factory=list, max_length=100)
    total: Count = 0
    offset: Count = 0
    error: str | None = Field(default=None, max_length=500)


class ResumableEntryBody(WireModel):
    mirrors: ClassVar[str] = "ResumableEntry"
    engine: str = Field(min_length=1, max_length=40)
    session_id: str = Field(min_length=1, max_length=200)
    cwd: str = Field(min_length=1, max_length=4096)
    last_active: str = Field(min_length=1, max_length=64)
    first_message: str = Field(default="", max_length=500)
    last_message: str = Field(default="", max_length=500)


class ResumableListingBody(MachineBody):
    mirrors: ClassVar[str] = "ResumableListingRequest"
    path: str = Field(max_length=4096)
    sessions: list[ResumableEntryBody] = Field(default_factory=list, max_length=50)
    error: str | None = Field(default=None, max_length=500)


class EndedBody(MachineBody):
    mirrors: ClassVar[str] = "SessionEndedRequest"
    exit_code: Int32 | None = None
    error: Annotated[str, captured(20_000)] | None = None
