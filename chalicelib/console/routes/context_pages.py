"""Console prompt preview: exactly what the prompt hook would inject for a prompt, with its size."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response

from chalicelib.console.domain.html import Markup, el
from chalicelib.console.pages.layout import page, short, table
from chalicelib.console.routes.common import bounded_text, console_blueprint
from chalicelib.console.web import ConsoleServices, Ctx, html
from chalicelib.context.services.prompt_context import Preview
from chalicelib.contracts.prompt_context import MAX_QUERY_CHARS

if TYPE_CHECKING:
    from chalicelib.console.services.reads import ReadsFactory
    from chalicelib.context.services.prompt_context import PromptContext


class Uses(ConsoleServices):
    console_reads: ReadsFactory
    prompt_context: PromptContext


bp = console_blueprint(__name__, Uses)


def _form(prompt: str, chosen: str | None, projects: list[str]) -> Markup:
    return el(
        "form",
        {"method": "get", "class": "filters", "id": "preview-form"},
        el("select", {"name": "project"},
           *[el("option", {"value": p, "selected": p == chosen}, p) for p in projects]),
        el("textarea", {"name": "prompt", "rows": 3, "cols": 80, "maxlength": MAX_QUERY_CHARS * 4,
                        "placeholder": "a prompt, as you would type it in a session"}, prompt),
        el("button", {"type": "submit"}, "Preview"),
    )


def _result(ctx: Ctx, found: Preview) -> list[Markup]:
    summary = (f"UserPromptSubmit would inject {found.chars} chars, ~{found.tokens} tokens"
               + (f" (search ran degraded: {found.degraded})" if found.degraded else ""))
    rows = [[el("a", {"href": ctx.url(f"/console/memories/{m['id']}")}, m["category"]),
             short(m["content"], 200), m["project"], m["source"], f"{m['score']:.3f}"]
            for m in found.memories]
    return [
        el("p", {"id": "preview-size", "class": "flash", "role": "status"}, summary),
        el("pre", {"class": "content", "id": "preview-text"},
           found.text or f"(nothing: {found.skipped or 'no memory matches and no graph context'})"),
        el("h2", None, "The matches behind it"),
        table(("memory", "content", "project", "source", "score"), rows, id_="preview-memories"),
    ]


@bp.page("/console/context")
def context(ctx: Ctx) -> Response:
    prompt = bounded_text(ctx.query("prompt"), "prompt", MAX_QUERY_CHARS * 4) or ""
    project = bounded_text(ctx.query("project"), "project")
    with bp.services.console_reads() as reads:
        projects = [p["project"] for p in reads.projects()]
    chosen = project or (projects[0] if projects else None)
    body: list[Markup] = [
        el("p", None, "What the UserPromptSubmit hook would add to a prompt in a fresh session: the "
                      "same search, the same text and size as `itachi context --prompt`. Untrusted "
                      "memories never appear; a session is not shown a memory twice."),
        _form(prompt, chosen, projects),
    ]
    if prompt and chosen:
        found = bp.services.prompt_context.preview(prompt, chosen)
        body += _result(ctx, found)
    return html(page(ctx.base, ctx.session.csrf_token, ctx.session.signed_in_as, "Prompt preview", *body))
