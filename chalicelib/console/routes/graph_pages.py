"""Console graph pages: a project's entities, one entity's neighbourhood, contradictions to resolve."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalice import Response

from chalicelib.console.domain.html import Markup, el, fragment
from chalicelib.console.pages.layout import flash, page, post_button, short, table, when
from chalicelib.console.routes.common import bounded_text, console_blueprint
from chalicelib.console.web import ConsoleServices, Ctx, html, redirect
from chalicelib.graph.routes import _translated as graph_errors
from chalicelib.graph.routes import _uuid as graph_id
from chalicelib.graph.services.graph_admin import RESOLUTIONS
from chalicelib.kernel.errors import InvalidInput

if TYPE_CHECKING:
    from chalicelib.console.services.reads import ReadsFactory
    from chalicelib.graph.services.graph_admin import GraphAdmin


class Uses(ConsoleServices):
    console_reads: ReadsFactory
    graph_admin: GraphAdmin


bp = console_blueprint(__name__, Uses)
CHOICES = {"keep_new": "Keep new", "keep_old": "Keep old", "keep_both": "Keep both"}


def _node_link(ctx: Ctx, node: dict[str, Any]) -> Markup:
    return el(
        "a",
        {"href": ctx.url(f"/console/graph/{node['id']}"), "class": "node-link"},
        short(node["content"], 160),
    )


def _contradictions(ctx: Ctx, project: str | None) -> Markup:
    found = bp.services.graph_admin.contradictions(project, "open", 50)
    csrf = ctx.session.csrf_token
    rows = [
        [
            _node_link(ctx, c["new"]),
            _node_link(ctx, c["old"]),
            c["project"],
            c["reason"],
            when(c["created_at"]),
            fragment(
                *[
                    post_button(ctx.url(f"/console/graph/contradictions/{c['id']}/{r}"), csrf, label)
                    for r, label in CHOICES.items()
                ]
            ),
        ]
        for c in found
    ]
    return table(("new", "old", "project", "why", "seen", "resolve"), rows, id_="contradiction-table")


@bp.page("/console/graph")
def graph(ctx: Ctx) -> Response:
    project = bounded_text(ctx.query("project"), "project")
    prefix = bounded_text(ctx.query("prefix"), "prefix", 200)
    with bp.services.console_reads() as reads:
        projects = reads.projects()
    chosen = project or (projects[0]["project"] if projects else None)
    entities = bp.services.graph_admin.entities(chosen, 100, prefix) if chosen else []
    form = el(
        "form",
        {"method": "get", "class": "filters"},
        el(
            "select",
            {"name": "project"},
            *[
                el("option", {"value": p["project"], "selected": p["project"] == chosen}, p["project"])
                for p in projects
            ],
        ),
        el(
            "input",
            {"name": "prefix", "value": prefix or "", "placeholder": "name starts with", "maxlength": 200},
        ),
        el("button", {"type": "submit"}, "Show"),
    )
    rows = [
        [_node_link(ctx, n.as_json()), n.subtype or n.node_type, f"{n.salience:.2f}", when(n.created_at)]
        for n in entities
    ]
    message = {r: f"Resolved: {label.lower()}." for r, label in CHOICES.items()}.get(ctx.query("done"))
    return html(
        page(
            ctx.base,
            ctx.session.csrf_token,
            ctx.session.signed_in_as,
            "Graph",
            flash(message),
            form,
            el("h2", None, "Contradictions to resolve"),
            _contradictions(ctx, None),
            el("h2", None, f"Entities of {chosen}" if chosen else "Entities"),
            table(("entity", "type", "salience", "created"), rows, id_="entity-table"),
        )
    )


@bp.page("/console/graph/{node_id}")
def entity(ctx: Ctx, node_id: str) -> Response:
    with graph_errors():
        profile = bp.services.graph_admin.profile(graph_id(node_id, "id"))
    rows = [
        [r["type"], "→" if r["direction"] == "out" else "←", _node_link(ctx, r["node"]), r["node"]["type"]]
        for r in profile["relationships"]
    ]
    facts = [
        ("project", profile["project"]),
        ("type", profile["type"]),
        ("subtype", profile["subtype"] or "—"),
        ("salience", profile["salience"]),
        ("confidence", profile["confidence"]),
        ("source", profile["source"]),
        ("valid from", profile["valid_from"] or "—"),
        ("valid until", profile["valid_until"] or "—"),
        ("superseded by", profile["superseded_by"] or "—"),
    ]
    return html(
        page(
            ctx.base,
            ctx.session.csrf_token,
            ctx.session.signed_in_as,
            "Entity",
            el("pre", {"class": "content", "id": "node-content"}, profile["content"]),
            el("dl", {"class": "facts"}, *[fragment(el("dt", None, k), el("dd", None, v)) for k, v in facts]),
            el("h2", None, "Neighbourhood"),
            table(("relation", "", "node", "type"), rows, id_="neighbour-table"),
        )
    )


@bp.page("/console/graph/contradictions/{contradiction_id}/{resolution}", methods=("POST",))
def resolve(ctx: Ctx, contradiction_id: str, resolution: str) -> Response:
    if resolution not in RESOLUTIONS:
        raise InvalidInput(f"resolution: one of {', '.join(RESOLUTIONS)}", field="resolution")
    with graph_errors():
        bp.services.graph_admin.resolve(graph_id(contradiction_id, "id"), resolution)
    return redirect(ctx.url("/console/graph", done=resolution))
