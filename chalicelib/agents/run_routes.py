"""Subagent runs: spawn, list, show, cancel, message, rate, and the pre-compaction notes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalice import Response
from pydantic import Field

from chalicelib.agents.domain.records import ACTIVE, RUN_STATUSES, AgentRun
from chalicelib.agents.services.messaging import Delivery
from chalicelib.agents.services.runs import SpawnRequest
from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body, parse_query
from chalicelib.kernel.wire import Int64, Money

if TYPE_CHECKING:
    from chalicelib.agents.services.lessons import ProfileLessons
    from chalicelib.agents.services.messaging import AgentMessaging
    from chalicelib.agents.services.runs import SubagentRuns
    from chalicelib.tasks.services.tasks import TaskService


class Uses:
    agent_messaging: AgentMessaging
    agent_runs: SubagentRuns
    profile_lessons: ProfileLessons
    tasks: TaskService


bp = ApiBlueprint(__name__, Uses)


class SpawnBody(WireModel):
    profile: str = Field(min_length=1, max_length=48)
    prompt: str = Field(min_length=1, max_length=20_000)
    project: str = Field(default="agents", min_length=1, max_length=300)
    repo: str | None = Field(default=None, max_length=2000)
    machine: str | None = Field(default=None, max_length=40)
    parent_run_id: str | None = Field(default=None, max_length=36)
    time_budget_s: int | None = Field(default=None, ge=1, le=86_400)
    cost_budget_usd: Money | None = None
    telegram_chat_id: Int64 | None = None
    telegram_topic_id: Int64 | None = None
    idempotency_key: str | None = Field(default=None, max_length=200)


class ListRunsQuery(WireModel):
    status: str | None = Field(default=None, max_length=20)
    profile: str | None = Field(default=None, max_length=48)
    limit: int = Field(default=50, ge=1, le=500)


class MessageBody(WireModel):
    body: str = Field(min_length=1, max_length=10_000)
    sender: str = Field(default="user", min_length=1, max_length=100)


class FeedbackBody(WireModel):
    good: bool
    note: str | None = Field(default=None, max_length=4000)


class NotesBody(WireModel):
    notes: str = Field(min_length=1, max_length=4000)


def delivery_json(sent: Delivery) -> dict[str, Any]:
    return {"message": sent.message.to_json(), "run_id": sent.run.id, "delivery": sent.delivery}


def run_json(run: AgentRun) -> dict[str, Any]:
    body = run.to_json()
    if run.task_id and run.status == ACTIVE:
        body["task_status"] = bp.services.tasks.get(run.task_id).status.value
    return body


@bp.route("/api/agents/runs", methods=["POST"])
def spawn_run() -> Response:
    b = parse_body(bp.current_request, SpawnBody)
    parent = bp.services.agent_runs.resolve(b.parent_run_id) if b.parent_run_id else None
    run = bp.services.agent_runs.spawn(SpawnRequest(
        b.profile, b.prompt, b.project, b.repo, b.machine, "agent" if parent else "user", parent,
        b.time_budget_s, b.cost_budget_usd, b.telegram_chat_id, b.telegram_topic_id, b.idempotency_key))
    return ok(run.to_json(), status=201)


@bp.route("/api/agents/runs", methods=["GET"])
def list_runs() -> Response:
    q = parse_query(bp.current_request, ListRunsQuery)
    if q.status is not None and q.status not in RUN_STATUSES:
        raise InvalidInput(f"status is one of {', '.join(RUN_STATUSES)}", field="status")
    runs = bp.services.agent_runs.search(status=q.status, profile=q.profile, limit=q.limit)
    return ok({"runs": [r.to_json() for r in runs]})


@bp.route("/api/agents/runs/{run_id}", methods=["GET"])
def get_run(run_id: str) -> Response:
    return ok(run_json(bp.services.agent_runs.get(run_id)))


@bp.route("/api/agents/runs/{run_id}/cancel", methods=["POST"])
def cancel_run(run_id: str) -> Response:
    return ok(run_json(bp.services.agent_runs.cancel(run_id)), status=202)


@bp.route("/api/agents/runs/{run_id}/messages", methods=["POST"])
def message_run(run_id: str) -> Response:
    b = parse_body(bp.current_request, MessageBody)
    sent = bp.services.agent_messaging.send(b.body, run=run_id, sender=b.sender)
    return ok(delivery_json(sent), status=201)


@bp.route("/api/agents/profiles/{name}/messages", methods=["POST"])
def message_profile(name: str) -> Response:
    b = parse_body(bp.current_request, MessageBody)
    sent = bp.services.agent_messaging.send(b.body, profile=name, sender=b.sender)
    return ok(delivery_json(sent), status=201)


@bp.route("/api/agents/runs/{run_id}/messages", methods=["GET"])
def run_messages(run_id: str) -> Response:
    messages = bp.services.agent_messaging.messages(run_id)
    return ok({"run_id": run_id, "messages": [m.to_json() for m in messages]})


@bp.route("/api/agents/runs/{run_id}/feedback", methods=["POST"])
def rate_run(run_id: str) -> Response:
    b = parse_body(bp.current_request, FeedbackBody)
    container = bp.services
    changed = container.profile_lessons.feedback(container.agent_runs.get(run_id), b.good, b.note)
    return ok({"run_id": run_id, "lessons": [lesson.to_json() for lesson in changed]})


@bp.route("/api/agents/runs/{run_id}/notes", methods=["POST"])
def save_notes(run_id: str) -> Response:
    b = parse_body(bp.current_request, NotesBody)
    container = bp.services
    saved = container.profile_lessons.save_notes(container.agent_runs.get(run_id), b.notes)
    return ok(saved.to_json(), status=201)
