"""Console brain page: the brain's state and its proposals, with Approve / Reject."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response

from chalicelib.console.domain.html import el, fragment
from chalicelib.console.pages.layout import flash, page, post_button, short, status_filter, table, when
from chalicelib.console.routes.common import bounded_text, console_blueprint
from chalicelib.console.web import ConsoleServices, Ctx, html, redirect
from chalicelib.kernel.errors import InvalidInput

if TYPE_CHECKING:
    from chalicelib.brain.services.proposal_decisions import ProposalDecisions


class Uses(ConsoleServices):
    brain_decisions: ProposalDecisions


bp = console_blueprint(__name__, Uses)
STATUSES = ("pending", "approving", "approved", "rejected", "expired", "failed")


@bp.page("/console/brain")
def brain(ctx: Ctx) -> Response:
    status = bounded_text(ctx.query("status"), "status", 20)
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"status: one of {', '.join(STATUSES)}", field="status")
    decisions = bp.services.brain_decisions
    state, proposals = decisions.state(), decisions.list(status=status, limit=100)
    csrf = ctx.session.csrf_token

    def actions(p_id: str, p_status: str) -> object:
        if p_status != "pending":
            return "—"
        base = ctx.url(f"/console/brain/{p_id}")
        return fragment(
            post_button(f"{base}/approve", csrf, "Approve", confirm="Approve this proposal?"),
            post_button(f"{base}/reject", csrf, "Reject"),
        )

    rows = [
        [
            el("strong", None, p.title),
            el("div", {"class": "note"}, short(p.rationale, 600)),
            p.project or "—",
            p.priority,
            short(p.action, 300),
            el("span", {"class": f"status {p.status}"}, p.status),
            p.result or p.reject_reason or "",
            when(p.created_at),
            actions(p.id, p.status),
        ]
        for p in proposals
    ]
    filters = status_filter(list(STATUSES), status)
    summary = el(
        "p",
        {"id": "brain-state"},
        "brain " + ("on" if state.get("enabled") else "off"),
        f" · {state.get('pending_proposals', 0)} pending proposals",
    )
    message = {"approved": "Approved.", "rejected": "Rejected."}.get(ctx.query("done"))
    return html(
        page(
            ctx.base,
            csrf,
            ctx.session.signed_in_as,
            "Brain proposals",
            flash(message),
            summary,
            filters,
            table(
                ("proposal", "why", "project", "priority", "action", "status", "outcome", "created", ""),
                rows,
                id_="proposal-table",
            ),
        )
    )


@bp.page("/console/brain/{proposal_id}/{decision}", methods=("POST",))
def decide(ctx: Ctx, proposal_id: str, decision: str) -> Response:
    decisions = bp.services.brain_decisions
    who = f"console:{ctx.session.signed_in_as}"
    if decision == "approve":
        decisions.approve(proposal_id, who)
    elif decision == "reject":
        decisions.reject(proposal_id, (ctx.form.get("reason") or "")[:500], who)
    else:
        raise InvalidInput("decision: approve or reject", field="decision")
    return redirect(ctx.url("/console/brain", done=f"{decision}d"))
