"""Task routes the agent calls: claim, lease, events, engine switch, result, outcome, release.

Each names the machine and the attempt (a machine key may name only its own: 403 otherwise,
`chalicelib/auth`); the service refuses (409) a call for an attempt that
is not the task's current one, so an agent that lost its task cannot overwrite a retry.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from chalice import Response

from chalicelib.kernel.errors import NotFound
from chalicelib.kernel.http import ApiBlueprint, ok, parse_body
from chalicelib.tasks.domain.task_model import NewEvent, TaskOutcome, TaskResult
from chalicelib.tasks.routes.agent_bodies import (
    AttemptBody,
    ClaimBody,
    EventsBody,
    OutcomeBody,
    ReleaseBody,
    ResultBody,
    SwitchBody,
)

if TYPE_CHECKING:
    from chalicelib.tasks.services.task_runs import TaskRunService
    from chalicelib.tasks.services.tasks import TaskService


class Uses:
    task_runs: TaskRunService
    tasks: TaskService


bp = ApiBlueprint(__name__, Uses)


def _task_id(raw: str) -> str:
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise NotFound(f"no task {raw!r}") from None


@bp.route("/api/tasks/{task_id}/claim", methods=["POST"])
def claim(task_id: str) -> Response:
    from chalicelib.contracts.agent_api import TaskClaim  # lazy: cold start

    body = parse_body(bp.current_request, ClaimBody)
    c = bp.services.task_runs.claim(_task_id(task_id), body.machine_id, body.dispatch_seq,
                                        body.agent_instance)
    return ok(TaskClaim(c.task.to_json(), c.prompt, c.task.attempts, c.lease_s, c.max_switches).to_body())


@bp.route("/api/tasks/{task_id}/lease", methods=["POST"])
def renew_lease(task_id: str) -> Response:
    from chalicelib.contracts.agent_api import LeaseState  # lazy: cold start

    body = parse_body(bp.current_request, AttemptBody)
    s = bp.services.task_runs.renew(_task_id(task_id), body.machine_id, body.attempt)
    return ok(LeaseState(s.keep_running, s.status.value, s.cancel_requested, s.lease_s).to_body())


@bp.route("/api/tasks/{task_id}/events", methods=["POST"])
def post_events(task_id: str) -> Response:
    body = parse_body(bp.current_request, EventsBody)
    events = [NewEvent(e.kind, e.text, e.data) for e in body.events]
    runs = bp.services.task_runs
    recorded = runs.record_events(_task_id(task_id), body.machine_id, body.attempt, events)
    return ok({"recorded": len(recorded), "last_seq": recorded[-1].seq if recorded else None})


@bp.route("/api/tasks/{task_id}/engine-switch", methods=["POST"])
def engine_switch(task_id: str) -> Response:
    body = parse_body(bp.current_request, SwitchBody)
    task = bp.services.task_runs.switch_engine(_task_id(task_id), body.machine_id, body.attempt,
                                                   body.from_engine, body.to_engine, body.reason)
    return ok({"engine_switches": task.engine_switches, "current_engine": task.current_engine})


@bp.route("/api/tasks/{task_id}/result", methods=["POST"])
def post_result(task_id: str) -> Response:
    b = parse_body(bp.current_request, ResultBody)
    result = TaskResult(**b.model_dump(exclude={"machine_id", "attempt"}))
    task = bp.services.task_runs.finish(_task_id(task_id), b.machine_id, b.attempt, result)
    return ok(task.to_json())


@bp.route("/api/tasks/{task_id}/outcome", methods=["POST"])
def post_outcome(task_id: str) -> Response:
    b = parse_body(bp.current_request, OutcomeBody)
    container = bp.services
    task = container.tasks.get(_task_id(task_id))
    recorded = container.task_runs.record_outcome(TaskOutcome(
        task.id, b.attempt, task.project, b.outcome, b.engine, b.summary, tuple(b.files_changed),
        b.cost_usd, b.duration_s))
    return ok({"recorded": recorded})


@bp.route("/api/tasks/{task_id}/release", methods=["POST"])
def release(task_id: str) -> Response:
    b = parse_body(bp.current_request, ReleaseBody)
    task = bp.services.task_runs.release(_task_id(task_id), b.machine_id, b.dispatch_seq, b.reason)
    return ok(task.to_json())
