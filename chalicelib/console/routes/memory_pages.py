"""Console memory pages: search and browse with filters, one memory, and its actions."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from chalice import Response

from chalicelib.console.pages.layout import flash, page
from chalicelib.console.pages.memory_views import detail, results, search_form
from chalicelib.console.routes.common import (
    bounded_text,
    console_blueprint,
    day_start,
    parse_day,
    parse_int,
)
from chalicelib.console.web import ConsoleServices, Ctx, html, redirect
from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain.memory_lifecycle import KEEP_TAG, PHASES
from chalicelib.memory.routes import parse_memory_id

if TYPE_CHECKING:
    from chalicelib.console.services.reads import ReadsFactory
    from chalicelib.memory.services.memory_lifecycle import MemoryLifecycle
    from chalicelib.memory.services.memory_service import MemoryService


class Uses(ConsoleServices):
    console_reads: ReadsFactory
    memory: MemoryService
    memory_lifecycle: MemoryLifecycle


bp = console_blueprint(__name__, Uses)
PAGE_SIZE = 50
FILTERS = ("q", "project", "category", "tag", "phase", "since", "until")
MAX_UUID = "ffffffff-ffff-ffff-ffff-ffffffffffff"


def _filters(ctx: Ctx) -> dict[str, str]:
    f = {name: ctx.query(name) for name in FILTERS}
    for name in ("project", "category", "tag"):
        bounded_text(f[name], name)
    bounded_text(f["q"], "q", 2000)
    return f


def _search(f: dict[str, str], projects: list[str]) -> tuple[list[dict[str, Any]], str]:
    scope = (f["project"],) if f["project"] else tuple(projects)
    if not scope:
        return [], "No memories yet."
    found = bp.services.memory.search_scopes(
        f["q"], [(scope, PAGE_SIZE)], category=f["category"] or None, tag=f["tag"] or None
    )
    since, until = parse_day(f["since"], "since"), parse_day(f["until"], "until")
    hits = [
        h
        for h in found.hits
        if (since is None or h.created_at >= day_start(since))
        and (until is None or h.created_at < day_start(until) + timedelta(days=1))
    ]
    rows = [
        {
            "id": h.id,
            "content": h.content,
            "project": h.project,
            "category": h.category,
            "score": h.score,
            "created_at": h.created_at,
            "phase": "full",
        }
        for h in hits
    ]
    note = (
        f"{len(rows)} best matches ({found.mode} search"
        + (f", {found.degraded}" if found.degraded else "")
        + ")"
    )
    return rows, note


def _browse(ctx: Ctx, f: dict[str, str]) -> tuple[list[dict[str, Any]], str, str | None]:
    phase = parse_int(f["phase"], "phase", 0, len(PHASES) - 1)
    since, until = parse_day(f["since"], "since"), parse_day(f["until"], "until")
    after = None
    cursor = ctx.query("after")
    if cursor:
        at, _, ident = cursor.partition("|")
        try:
            after = (datetime.fromisoformat(at), str(parse_memory_id(ident)))
        except ValueError:
            raise InvalidInput("after: not a cursor this page made", field="after") from None
    elif until is not None:
        after = (day_start(until) + timedelta(days=1), MAX_UUID)
    listing = bp.services.memory_lifecycle.listing(
        project=f["project"] or None,
        phase=phase,
        tag=f["tag"] or None,
        category=f["category"] or None,
        after=after,
        limit=PAGE_SIZE,
    )
    kept = [m for m in listing.memories if since is None or m.created_at >= day_start(since)]
    rows = [
        {
            "id": m.id,
            "content": m.content,
            "project": m.project,
            "category": m.category,
            "phase": PHASES[m.phase],
            "tags": m.tags,
            "created_at": m.created_at,
        }
        for m in kept
    ]
    more = None
    if listing.next_after is not None and len(kept) == len(listing.memories):
        last_at, last_id = listing.next_after
        more = ctx.url("/console/memories", **{**f, "after": f"{last_at.isoformat()}|{last_id}"})
    return rows, f"{len(rows)} memories, newest first", more


@bp.page("/console")
def home(ctx: Ctx) -> Response:
    return redirect(ctx.url("/console/memories"))


@bp.page("/console/memories")
def memories(ctx: Ctx) -> Response:
    f = _filters(ctx)
    with bp.services.console_reads() as reads:
        projects = reads.projects()
    if f["q"]:
        rows, note = _search(f, [p["project"] for p in projects])
        more = None
    else:
        rows, note, more = _browse(ctx, f)
    message = "Memory forgotten." if ctx.query("forgotten") else None
    return html(
        page(
            ctx.base,
            ctx.session.csrf_token,
            ctx.session.signed_in_as,
            "Memories",
            flash(message),
            search_form(ctx.url("/console/memories"), f, projects),
            results(ctx.base, rows, note, more),
        )
    )


@bp.page("/console/memories/{memory_id}")
def memory(ctx: Ctx, memory_id: str) -> Response:
    container = bp.services
    m = container.memory.get(parse_memory_id(memory_id), record_access=False)
    try:
        near = container.memory.find_similar(m.project, m.category, m.content, threshold=0.8, limit=6)
        similar = [
            {
                "id": s.memory.id,
                "content": s.memory.content,
                "similarity": s.similarity,
                "created_at": s.memory.created_at,
            }
            for s in near
            if s.memory.id != m.id
        ][:5]
        note = "Live memories of the same project and category at cosine similarity 0.8 or more."
    except Exception:  # the embedding model is down: the page still shows the memory
        similar, note = [], "Near duplicates are unavailable: the embedding model did not answer."
    saved = {
        "saved": "Saved.",
        "restored": "Restored from the archive.",
        "kept": "Pinned as keep.",
        "unkept": "The keep pin is removed.",
    }.get(ctx.query("done"))
    return html(
        page(
            ctx.base,
            ctx.session.csrf_token,
            ctx.session.signed_in_as,
            "Memory",
            flash(saved),
            detail(ctx.base, ctx.session.csrf_token, m, similar, note),
        )
    )


@bp.page("/console/memories/{memory_id}/{action}", methods=("POST",))
def memory_action(ctx: Ctx, memory_id: str, action: str) -> Response:
    container = bp.services
    ident = parse_memory_id(memory_id)
    back = ctx.url(f"/console/memories/{ident}")
    if action == "edit":
        content = (ctx.form.get("content") or "").strip()
        if not content or len(content) > 20_000 or "\x00" in content:
            raise InvalidInput("content: 1 to 20000 characters, no NUL", field="content")
        container.memory.update_content(ident, content)
        return redirect(back + "?done=saved")
    if action == "forget":
        container.memory.delete(ident)
        return redirect(ctx.url("/console/memories", forgotten=ident))
    if action == "restore":
        container.memory_lifecycle.restore(ident)
        return redirect(back + "?done=restored")
    if action == "keep":
        kept = KEEP_TAG in container.memory.get(ident, record_access=False).tags
        container.memory_lifecycle.tag(ident, [] if kept else [KEEP_TAG], [KEEP_TAG] if kept else [])
        return redirect(back + ("?done=unkept" if kept else "?done=kept"))
    raise InvalidInput("action: one of edit, forget, restore, keep", field="action")
