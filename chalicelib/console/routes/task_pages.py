"""Console task pages: list, one task with live output (cursor polling), cancel and retry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response

from chalicelib.console.domain.html import el
from chalicelib.console.pages.layout import flash, page, status_filter
from chalicelib.console.pages.task_views import output_update, run_rows, task_detail, task_rows
from chalicelib.console.routes.common import bounded_text, console_blueprint, parse_int
from chalicelib.console.web import ConsoleServices, Ctx, html, redirect
from chalicelib.kernel.errors import InvalidInput
from chalicelib.tasks.domain.task_model import NewTask
from chalicelib.tasks.domain.task_states import TaskStatus

if TYPE_CHECKING:
    from chalicelib.agents.services.runs import SubagentRuns
    from chalicelib.tasks.services.tasks import TaskService


class Uses(ConsoleServices):
    agent_runs: SubagentRuns
    tasks: TaskService


bp = console_blueprint(__name__, Uses)
EVENTS_PER_POLL = 200


@bp.page("/console/tasks")
def tasks(ctx: Ctx) -> Response:
    status = bounded_text(ctx.query("status"), "status", 40)
    project = bounded_text(ctx.query("project"), "project")
    container = bp.services
    found = container.tasks.list_tasks(status=status, project=project, limit=100)
    runs = container.agent_runs.search(limit=50)
    filters = status_filter(
        [s.value for s in TaskStatus],
        status,
        el("input", {"name": "project", "value": project or "", "placeholder": "project", "maxlength": 300}),
        label="Filter",
    )
    return html(
        page(
            ctx.base,
            ctx.session.csrf_token,
            ctx.session.signed_in_as,
            "Tasks",
            filters,
            task_rows(ctx.base, found),
            el("h2", None, "Subagent runs"),
            run_rows(ctx.base, ctx.session.csrf_token, runs),
        )
    )


@bp.page("/console/tasks/{task_id}")
def task(ctx: Ctx, task_id: str) -> Response:
    service = bp.services.tasks
    found = service.get(task_id)
    events = service.events(found.id, after=0, limit=1000)
    after = events[-1].seq if events else 0
    message = {"cancelled": "Cancel requested.", "retried": "This is the retry."}.get(ctx.query("done"))
    return html(
        page(
            ctx.base,
            ctx.session.csrf_token,
            ctx.session.signed_in_as,
            "Task",
            flash(message),
            task_detail(ctx.base, ctx.session.csrf_token, found, events, after),
        )
    )


@bp.page("/console/tasks/{task_id}/output")
def task_output(ctx: Ctx, task_id: str) -> Response:
    after = parse_int(ctx.query("after"), "after", 0, 2**62) or 0
    service = bp.services.tasks
    events = service.events(task_id, after=after, limit=EVENTS_PER_POLL)
    found = service.get(task_id)  # read after the events: a finished status comes with every event
    cursor = events[-1].seq if events else after
    # A full page means more events are waiting: keep polling before showing the result.
    return html(
        output_update(
            ctx.base, ctx.session.csrf_token, found, events, cursor, more=len(events) == EVENTS_PER_POLL
        )
    )


@bp.page("/console/tasks/{task_id}/{action}", methods=("POST",))
def task_action(ctx: Ctx, task_id: str, action: str) -> Response:
    service = bp.services.tasks
    if action == "cancel":
        done = service.cancel(task_id)
        return redirect(ctx.url(f"/console/tasks/{done.id}", done="cancelled"))
    if action == "retry":
        old = service.get(task_id)
        new = service.create(
            NewTask(
                project=old.project,
                description=old.description,
                repo=old.repo,
                engine=old.engine,
                target_machine=old.target_machine,
                time_budget_s=old.time_budget_s,
                cost_budget_usd=old.cost_budget_usd,
                max_attempts=old.max_attempts,
            )
        )
        return redirect(ctx.url(f"/console/tasks/{new.id}", done="retried"))
    raise InvalidInput("action: cancel or retry", field="action")


@bp.page("/console/agents/{run_id}/cancel", methods=("POST",))
def cancel_run(ctx: Ctx, run_id: str) -> Response:
    bp.services.agent_runs.cancel(run_id)
    return redirect(ctx.url("/console/tasks", done="run-cancelled"))
