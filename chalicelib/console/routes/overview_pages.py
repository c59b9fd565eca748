"""Console read-only pages: rules and lessons, sessions, machines, spend."""

from __future__ import annotations

from chalice import Response

from chalicelib.bootstrap import get_container
from chalicelib.console.pages import overview_views as views
from chalicelib.console.pages.layout import page
from chalicelib.console.routes.common import bounded_text, console_blueprint, parse_int
from chalicelib.console.web import Ctx, html
from chalicelib.llm.domain.llm_budget import DailyBudget

bp = console_blueprint(__name__)


@bp.page("/console/learning")
def learning(ctx: Ctx) -> Response:
    project = bounded_text(ctx.query("project"), "project")
    with get_container().console_reads() as reads:
        projects, rows = reads.projects(), reads.learned(project, 200)
        history = reads.lesson_history([r["id"] for r in rows])
    return html(
        page(
            ctx.base,
            ctx.session.csrf_token,
            ctx.session.signed_in_as,
            "Rules & lessons",
            views.project_filter(ctx.url("/console/learning"), project or "", projects),
            views.learned(ctx.base, rows, history),
        )
    )


@bp.page("/console/sessions")
def sessions(ctx: Ctx) -> Response:
    project = bounded_text(ctx.query("project"), "project")
    with get_container().console_reads() as reads:
        projects, rows = reads.projects(), reads.sessions(project, 100)
    return html(
        page(
            ctx.base,
            ctx.session.csrf_token,
            ctx.session.signed_in_as,
            "Sessions",
            views.project_filter(ctx.url("/console/sessions"), project or "", projects),
            views.sessions(rows),
        )
    )


@bp.page("/console/machines")
def machines(ctx: Ctx) -> Response:
    container = get_container()
    rows = container.machine_registry.list_machines()
    running: dict[str, list[str]] = {}
    for t in container.tasks.list_tasks(status="running", limit=200):
        running.setdefault(t.machine_id or "?", []).append(t.id[:8])
    return html(
        page(
            ctx.base,
            ctx.session.csrf_token,
            ctx.session.signed_in_as,
            "Machines",
            views.machines(rows, running),
        )
    )


@bp.page("/console/spend")
def spend(ctx: Ctx) -> Response:
    from chalicelib.llm.services.usage_report import usage_report

    days = parse_int(ctx.query("days"), "days", 1, 366) or 30
    container = get_container()
    s = container.settings
    report = usage_report(
        container.llm_units,
        DailyBudget(usd=s.llm_daily_budget_usd, tokens=s.llm_daily_budget_tokens),
        model=container.llm.model,
        enabled=container.llm.enabled,
        days=days,
    )
    with container.console_reads() as reads:
        embeddings = reads.embeddings_by_day(days)
    return html(
        page(
            ctx.base,
            ctx.session.csrf_token,
            ctx.session.signed_in_as,
            "Spend",
            views.spend(report, embeddings),
        )
    )
