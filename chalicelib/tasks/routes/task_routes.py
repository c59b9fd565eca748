"""Tasks for users (CLI, Telegram): create, list, show, cancel, follow events."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from chalice import Response
from pydantic import Field

from chalicelib.contracts.agent_vocabulary import Engine
from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body, parse_query
from chalicelib.kernel.wire import Count, Int64, Money
from chalicelib.tasks.domain.task_model import NewTask
from chalicelib.tasks.domain.task_states import TaskStatus

if TYPE_CHECKING:
    from chalicelib.tasks.services.tasks import TaskService


class Uses:
    tasks: TaskService


bp = ApiBlueprint(__name__, Uses)


class CreateTaskBody(WireModel):
    mirrors: ClassVar[str] = "NewTaskRequest"
    description: str = Field(min_length=1, max_length=20_000)
    project: str = Field(min_length=1, max_length=300)
    repo: str | None = Field(default=None, max_length=2000)
    engine: Engine | None = None
    machine: str | None = Field(default=None, max_length=40)
    time_budget_s: int = Field(default=1800, ge=1, le=86_400)
    cost_budget_usd: Money | None = None
    max_attempts: int = Field(default=2, ge=1, le=10)
    telegram_chat_id: Int64 | None = None
    telegram_topic_id: Int64 | None = None
    idempotency_key: str | None = Field(default=None, max_length=200)

    def new_task(self) -> NewTask:
        return NewTask(
            project=self.project, description=self.description, repo=self.repo, engine=self.engine,
            target_machine=self.machine, time_budget_s=self.time_budget_s,
            cost_budget_usd=self.cost_budget_usd, max_attempts=self.max_attempts,
            telegram_chat_id=self.telegram_chat_id, telegram_topic_id=self.telegram_topic_id,
            idempotency_key=self.idempotency_key,
        )


class ListTasksQuery(WireModel):
    status: str | None = Field(default=None, max_length=40)
    project: str | None = Field(default=None, max_length=300)
    machine: str | None = Field(default=None, max_length=100)
    limit: int = Field(default=50, ge=1, le=500)


class EventsQuery(WireModel):
    after: Count = 0
    limit: int = Field(default=200, ge=1, le=1000)


@bp.route("/api/tasks", methods=["POST"])
def create_task() -> Response:
    body = parse_body(bp.current_request, CreateTaskBody)
    task = bp.services.tasks.create(body.new_task())
    return ok(task.to_json(), status=201)


@bp.route("/api/tasks", methods=["GET"])
def list_tasks() -> Response:
    q = parse_query(bp.current_request, ListTasksQuery)
    tasks = bp.services.tasks.list_tasks(status=q.status, project=q.project, machine=q.machine,
                                             limit=q.limit)
    return ok({"tasks": [t.to_json() for t in tasks]})


@bp.route("/api/tasks/{task_id}", methods=["GET"])
def get_task(task_id: str) -> Response:
    return ok(bp.services.tasks.get(task_id).to_json())


@bp.route("/api/tasks/{task_id}/cancel", methods=["POST"])
def cancel_task(task_id: str) -> Response:
    task = bp.services.tasks.cancel(task_id)
    # 202 while the agent still has to stop the run; 200 once cancelled.
    return ok(task.to_json(), status=202 if task.status == TaskStatus.RUNNING else 200)


@bp.route("/api/tasks/{task_id}/events", methods=["GET"])
def task_events(task_id: str) -> Response:
    q = parse_query(bp.current_request, EventsQuery)
    service = bp.services.tasks
    task = service.get(task_id)
    events = service.events(task.id, after=q.after, limit=q.limit)
    last = events[-1].seq if events else q.after
    return ok({"task_id": task.id, "status": task.status.value, "events": [e.to_json() for e in events],
               "next_after": last})
