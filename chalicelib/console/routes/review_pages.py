"""Console review queue: untrusted memories and proposed rules, each kept, edited and kept, or dropped.

The person recorded is the session's key (`console:<key name>`); dropping archives, never deletes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response

from chalicelib.console.domain.html import Markup, el, fragment
from chalicelib.console.pages.layout import flash, hidden_csrf, page, post_button, table, when
from chalicelib.console.routes.common import bounded_text, console_blueprint
from chalicelib.console.web import ConsoleServices, Ctx, html, redirect
from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain.memory_model import Memory
from chalicelib.memory.domain.review_digest import kind_of
from chalicelib.memory.routes import parse_memory_id
from chalicelib.memory.services.memory_review import MAX_TEXT_CHARS

if TYPE_CHECKING:
    from chalicelib.memory.services.memory_review import MemoryReview


class Uses(ConsoleServices):
    memory_review: MemoryReview


bp = console_blueprint(__name__, Uses)
DONE = {"kept": "Kept: it is trusted now.", "edited": "Edited and kept.", "dropped": "Dropped: archived."}


def _edit_form(ctx: Ctx, m: Memory) -> Markup:
    return el(
        "form",
        {"method": "post", "action": ctx.url(f"/console/review/{m.id}/edit"), "class": "review-edit"},
        hidden_csrf(ctx.session.csrf_token),
        el("textarea", {"name": "content", "rows": 3, "id": f"content-{m.id}", "maxlength": MAX_TEXT_CHARS},
           m.content),
        el("button", {"type": "submit"}, "Keep edited"),
    )


def _row(ctx: Ctx, m: Memory) -> list[object]:
    base, csrf = ctx.url(f"/console/review/{m.id}"), ctx.session.csrf_token
    return [
        _edit_form(ctx, m),
        m.project,
        el("a", {"href": ctx.url(f"/console/memories/{m.id}")}, kind_of(m)),
        m.source,
        m.metadata.get("quarantine") or "",
        when(m.created_at),
        fragment(post_button(f"{base}/keep", csrf, "Keep"), post_button(f"{base}/drop", csrf, "Drop")),
    ]


@bp.page("/console/review")
def review(ctx: Ctx) -> Response:
    project = bounded_text(ctx.query("project"), "project")
    waiting = bp.services.memory_review.waiting(project, 200)
    return html(
        page(
            ctx.base,
            ctx.session.csrf_token,
            ctx.session.signed_in_as,
            "Review queue",
            flash(DONE.get(ctx.query("done"))),
            el("p", {"class": "note", "id": "review-count"},
               f"{len(waiting)} waiting: text agents and keys stored, and rules they proposed. "
               "Keep trusts it (injected, a live rule); Drop archives it."),
            table(("memory", "project", "kind", "source", "why", "stored", ""),
                  [_row(ctx, m) for m in waiting], id_="review-table"),
        )
    )


@bp.page("/console/review/{memory_id}/{decision}", methods=("POST",))
def decide(ctx: Ctx, memory_id: str, decision: str) -> Response:
    ident = parse_memory_id(memory_id)
    review_queue, who = bp.services.memory_review, f"console:{ctx.session.signed_in_as}"
    if decision == "keep":
        review_queue.keep(ident, who)
    elif decision == "edit":
        review_queue.keep(ident, who, ctx.form.get("content") or "")
    elif decision == "drop":
        review_queue.drop(ident, who)
    else:
        raise InvalidInput("decision: keep, edit or drop", field="decision")
    done = {"keep": "kept", "edit": "edited", "drop": "dropped"}[decision]
    return redirect(ctx.url("/console/review", done=done))
