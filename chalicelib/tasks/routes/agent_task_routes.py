"""Task routes the agent calls: claim, lease, events, engine switch, result, outcome, release.

Each names the machine and the attempt; the service refuses (409) a call for an attempt that
is not the task's current one, so an agent that lost its task cannot overwrite a retry.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

from chalice import Response
from pydantic import Field

from chalicelib.bootstrap import get_container
from chalicelib.kernel.errors import NotFound
from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body
from chalicelib.kernel.wire import CapturedJson, Count, Int32, Money, Seconds, captured
from chalicelib.tasks.domain.task_model import NewEvent, TaskOutcome, TaskResult
from chalicelib.tasks.domain.task_states import TaskStatus

bp = ApiBlueprint(__name__)


def _task_id(raw: str) -> str:
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise NotFound(f"no task {raw!r}") from None


MachineId = Field(min_length=1, max_length=100)
Attempt = Annotated[int, Field(ge=1, le=2**31 - 1)]
Engine = Field(default=None, max_length=40)
Files = list[Annotated[str, captured(4000)]]


class ClaimBody(WireModel):
    machine_id: str = MachineId
    dispatch_seq: Count
    agent_instance: str = Field(min_length=1, max_length=100)


class AttemptBody(WireModel):
    machine_id: str = MachineId
    attempt: Attempt


class EventBody(WireModel):
    kind: str = Field(min_length=1, max_length=40)
    text: Annotated[str, captured(20_000)] = ""
    data: CapturedJson = Field(default_factory=dict)


class EventsBody(AttemptBody):
    events: list[EventBody] = Field(max_length=500)


class SwitchBody(AttemptBody):
    from_engine: str = Field(min_length=1, max_length=40)
    to_engine: str = Field(min_length=1, max_length=40)
    reason: Annotated[str, captured(2000)] = ""


class ResultBody(AttemptBody):
    status: Literal["completed", "failed", "cancelled", "timed_out"]
    summary: Annotated[str, captured(20_000)] = ""
    files_changed: Files = Field(default_factory=list, max_length=5000)
    exit_code: Int32 | None = None
    cost_usd: Money | None = None
    engine: str | None = Engine
    worktree: Annotated[str, captured(2000)] | None = None
    branch: Annotated[str, captured(300)] | None = None
    error: Annotated[str, captured(20_000)] | None = None


class OutcomeBody(WireModel):
    attempt: Attempt
    outcome: Literal["success", "failure", "cancelled"]
    engine: str | None = Engine
    summary: Annotated[str, captured(20_000)] = ""
    files_changed: Files = Field(default_factory=list, max_length=5000)
    cost_usd: Money | None = None
    duration_s: Seconds | None = None


class ReleaseBody(WireModel):
    machine_id: str = MachineId
    dispatch_seq: Count
    reason: str = Field(default="machine at capacity", max_length=2000)


@bp.route("/api/tasks/{task_id}/claim", methods=["POST"])
def claim(task_id: str) -> Response:
    body = parse_body(bp.current_request, ClaimBody)
    c = get_container().task_runs.claim(_task_id(task_id), body.machine_id, body.dispatch_seq,
                                        body.agent_instance)
    return ok({"task": c.task.to_json(), "prompt": c.prompt, "attempt": c.task.attempts,
               "lease_s": c.lease_s, "max_switches": c.max_switches})


@bp.route("/api/tasks/{task_id}/lease", methods=["POST"])
def renew_lease(task_id: str) -> Response:
    body = parse_body(bp.current_request, AttemptBody)
    s = get_container().task_runs.renew(_task_id(task_id), body.machine_id, body.attempt)
    return ok({"keep_running": s.keep_running, "status": s.status.value,
               "cancel_requested": s.cancel_requested, "lease_s": s.lease_s})


@bp.route("/api/tasks/{task_id}/events", methods=["POST"])
def post_events(task_id: str) -> Response:
    body = parse_body(bp.current_request, EventsBody)
    events = [NewEvent(e.kind, e.text, e.data) for e in body.events]
    runs = get_container().task_runs
    recorded = runs.record_events(_task_id(task_id), body.machine_id, body.attempt, events)
    return ok({"recorded": len(recorded), "last_seq": recorded[-1].seq if recorded else None})


@bp.route("/api/tasks/{task_id}/engine-switch", methods=["POST"])
def engine_switch(task_id: str) -> Response:
    body = parse_body(bp.current_request, SwitchBody)
    task = get_container().task_runs.switch_engine(_task_id(task_id), body.machine_id, body.attempt,
                                                   body.from_engine, body.to_engine, body.reason)
    return ok({"engine_switches": task.engine_switches, "current_engine": task.current_engine})


@bp.route("/api/tasks/{task_id}/result", methods=["POST"])
def post_result(task_id: str) -> Response:
    b = parse_body(bp.current_request, ResultBody)
    result = TaskResult(TaskStatus(b.status), b.summary, tuple(b.files_changed), b.exit_code, b.cost_usd,
                        b.engine, b.worktree, b.branch, b.error)
    task = get_container().task_runs.finish(_task_id(task_id), b.machine_id, b.attempt, result)
    return ok(task.to_json())


@bp.route("/api/tasks/{task_id}/outcome", methods=["POST"])
def post_outcome(task_id: str) -> Response:
    b = parse_body(bp.current_request, OutcomeBody)
    container = get_container()
    task = container.tasks.get(_task_id(task_id))
    recorded = container.task_runs.record_outcome(TaskOutcome(
        task.id, b.attempt, task.project, b.outcome, b.engine, b.summary, tuple(b.files_changed),
        b.cost_usd, b.duration_s))
    return ok({"recorded": recorded})


@bp.route("/api/tasks/{task_id}/release", methods=["POST"])
def release(task_id: str) -> Response:
    b = parse_body(bp.current_request, ReleaseBody)
    task = get_container().task_runs.release(_task_id(task_id), b.machine_id, b.dispatch_seq, b.reason)
    return ok(task.to_json())
