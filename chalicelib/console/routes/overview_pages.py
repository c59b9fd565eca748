"""Console pages: rules and lessons (with Promote to a namespace), sessions, machines, spend."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalice import Response

from chalicelib.console.domain.html import fragment
from chalicelib.console.pages import overview_views as views
from chalicelib.console.pages.layout import flash, page, post_button
from chalicelib.console.routes.common import bounded_text, console_blueprint, parse_int
from chalicelib.console.web import ConsoleServices, Ctx, html, redirect
from chalicelib.contracts.memory_scopes import namespace_scope
from chalicelib.kernel.errors import InvalidInput
from chalicelib.llm.domain.llm_budget import DailyBudget
from chalicelib.memory.routes import parse_memory_id

if TYPE_CHECKING:
    from chalicelib.console.services.reads import ReadsFactory
    from chalicelib.kernel.settings import Settings
    from chalicelib.learning.services.project_rules import ProjectRules
    from chalicelib.learning.services.rule_clashes import RuleClashes
    from chalicelib.learning.services.rule_promotion import RulePromotion
    from chalicelib.llm.services.ports import LanguageModel, LlmUnits
    from chalicelib.namespaces.services.namespaces import Namespaces
    from chalicelib.tasks.services.machines import MachineRegistry
    from chalicelib.tasks.services.tasks import TaskService


class Uses(ConsoleServices):
    console_reads: ReadsFactory
    llm: LanguageModel
    llm_units: LlmUnits
    machine_registry: MachineRegistry
    namespaces: Namespaces
    project_rules: ProjectRules
    rule_clashes: RuleClashes
    rule_promotion: RulePromotion
    settings: Settings
    tasks: TaskService


bp = console_blueprint(__name__, Uses)
PROMOTABLE = "project_rule"


@bp.page("/console/learning")
def learning(ctx: Ctx) -> Response:
    project = bounded_text(ctx.query("project"), "project")
    promoted = bounded_text(ctx.query("promoted"), "promoted", 63)
    container = bp.services
    member_of: dict[str, list[str]] = {}
    for namespace in container.namespaces.listing():
        for member in namespace.projects:
            member_of.setdefault(member, []).append(namespace.name)
    # A member project's filter shows what it reads beside its own: its namespaces' rules too.
    scopes = None if project is None else [project, *(namespace_scope(n) for n in member_of.get(project, []))]
    with container.console_reads() as reads:
        projects, lessons = reads.projects(), reads.learned(scopes, 200)
        history = reads.lesson_history([r["id"] for r in lessons])
    # The rules are the one instruction store's live list (`GET /api/rules`: the project's, its
    # namespaces' and the global ones), the lessons memories.
    rows = [{**r, "content": r["text"]} for r in container.project_rules.listed(project)] + lessons
    clashes = [c.as_json() for c in container.rule_clashes.open(project)]
    csrf = ctx.session.csrf_token

    def promote_buttons(r: dict[str, Any]) -> Any:
        if r["category"] != PROMOTABLE:
            return ""
        return fragment(*[
            post_button(ctx.url(f"/console/learning/{r['id']}/promote"), csrf, f"Promote to {name}",
                        confirm=f"Promote this rule to {name}? Every project of {name} reads it then.",
                        namespace=name, project=project or "")
            for name in member_of.get(r["project"], [])
        ])

    return html(
        page(
            ctx.base,
            csrf,
            ctx.session.signed_in_as,
            "Rules & lessons",
            flash(f"Promoted to {promoted}: every project of {promoted} reads the rule." if promoted
                  else None),
            views.project_filter(ctx.url("/console/learning"), project or "", projects),
            views.rule_clashes(ctx.base, csrf, clashes),
            views.learned(ctx.base, rows, history, promote_buttons),
        )
    )


@bp.page("/console/learning/{rule_id}/promote", methods=("POST",))
def promote(ctx: Ctx, rule_id: str) -> Response:
    """Move a member project's rule up to one of its namespaces (the API's and the CLI's promotion)."""
    namespace = bounded_text((ctx.form.get("namespace") or "").strip(), "namespace", 63)
    if namespace is None:
        raise InvalidInput("namespace: the namespace to promote the rule to", field="namespace")
    back = bounded_text(ctx.form.get("project") or "", "project")
    bp.services.rule_promotion.promote(parse_memory_id(rule_id), namespace,
                                           by=f"console:{ctx.session.signed_in_as}")
    return redirect(ctx.url("/console/learning", project=back, promoted=namespace))


@bp.page("/console/learning/clashes/{rule_id}/{resolution}", methods=("POST",))
def settle(ctx: Ctx, rule_id: str, resolution: str) -> Response:
    """A flagged rule settled as a graph contradiction is: keep_new, keep_old or keep_both."""
    bp.services.rule_clashes.settle(parse_memory_id(rule_id), resolution,
                                        by=f"console:{ctx.session.signed_in_as}")
    return redirect(ctx.url("/console/learning", done=resolution))


@bp.page("/console/sessions")
def sessions(ctx: Ctx) -> Response:
    project = bounded_text(ctx.query("project"), "project")
    with bp.services.console_reads() as reads:
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
    container = bp.services
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
    container = bp.services
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
