"""The memory pages' HTML: the search form, result rows, one memory with its actions."""

from __future__ import annotations

from typing import Any

from chalicelib.console.domain.html import Markup, el, fragment
from chalicelib.console.pages.layout import post_button, short, table, when
from chalicelib.memory.domain.memory_lifecycle import KEEP_TAG, PHASES
from chalicelib.memory.domain.memory_model import Memory


def _select(name: str, current: str, options: list[tuple[str, str]]) -> Markup:
    return el(
        "select",
        {"name": name, "id": f"f-{name}"},
        *[el("option", {"value": v, "selected": v == current}, label) for v, label in options],
    )


def search_form(action: str, f: dict[str, str], projects: list[dict[str, Any]]) -> Markup:
    project_options = [("", "all projects")] + [(p["project"], p["project"]) for p in projects]
    phase_options = [("", "any phase")] + [(str(i), name) for i, name in enumerate(PHASES)]
    return el(
        "form",
        {
            "method": "get",
            "action": action,
            "class": "filters",
            "hx-get": action,
            "hx-target": "#results",
            "hx-select": "#results",
            "hx-swap": "outerHTML",
            "hx-push-url": "true",
        },
        el(
            "input",
            {
                "type": "search",
                "name": "q",
                "value": f.get("q", ""),
                "placeholder": "search memories",
                "id": "f-q",
                "maxlength": 2000,
            },
        ),
        _select("project", f.get("project", ""), project_options),
        el(
            "input",
            {"name": "category", "value": f.get("category", ""), "placeholder": "category", "maxlength": 100},
        ),
        el("input", {"name": "tag", "value": f.get("tag", ""), "placeholder": "tag", "maxlength": 100}),
        _select("phase", f.get("phase", ""), phase_options),
        el(
            "label",
            None,
            "since ",
            el("input", {"type": "date", "name": "since", "value": f.get("since", "")}),
        ),
        el(
            "label",
            None,
            "until ",
            el("input", {"type": "date", "name": "until", "value": f.get("until", "")}),
        ),
        el("button", {"type": "submit", "id": "search"}, "Search"),
    )


def results(base: str, rows: list[dict[str, Any]], note: str, more: str | None) -> Markup:
    body = [
        [
            el(
                "a",
                {"href": f"{base}/console/memories/{r['id']}", "class": "memory-link"},
                short(r["content"]),
            ),
            r["project"],
            r["category"],
            r.get("phase", ""),
            ", ".join(r.get("tags", ())),
            f"{r['score']:.3f}" if r.get("score") is not None else "",
            when(r.get("created_at")),
        ]
        for r in rows
    ]
    return el(
        "section",
        {"id": "results"},
        el("p", {"class": "note"}, note),
        table(
            ("memory", "project", "category", "phase", "tags", "score", "created"), body, id_="memory-table"
        ),
        el("p", None, el("a", {"href": more, "id": "more"}, "Older →")) if more else fragment(),
    )


def detail(base: str, csrf: str, m: Memory, similar: list[dict[str, Any]], similar_note: str) -> Markup:
    action = f"{base}/console/memories/{m.id}"
    kept = KEEP_TAG in m.tags
    facts = [
        ("project", m.project),
        ("category", m.category),
        ("phase", PHASES[m.phase]),
        ("tags", ", ".join(m.tags) or "—"),
        ("summary", m.summary or "—"),
        ("files", ", ".join(m.files) or "—"),
        ("session", m.session_id or "—"),
        ("sources", ", ".join(m.source_ids) or "—"),
        ("superseded by", m.superseded_by or "—"),
        ("created", when(m.created_at)),
        ("updated", when(m.updated_at)),
        ("times reinforced", m.times_reinforced),
        ("last reinforced", when(m.last_reinforced_at)),
        ("access count", m.access_count),
        ("last accessed", when(m.last_accessed_at)),
        ("significance", f"{m.significance:.2f}"),
        ("confidence", f"{m.confidence:.2f}"),
        ("embedding model", m.embedding_model or "none yet"),
        ("metadata", short(m.metadata, 2000) if m.metadata else "—"),
    ]
    actions = [
        post_button(f"{action}/keep", csrf, "Unpin (remove keep)" if kept else "Pin as keep"),
        post_button(f"{action}/forget", csrf, "Forget", confirm="Forget this memory for good?"),
    ]
    if m.phase > 0:
        actions.insert(0, post_button(f"{action}/restore", csrf, "Restore from archive"))
    return fragment(
        el("pre", {"class": "content", "id": "memory-content"}, m.content),
        el("div", {"class": "actions"}, *actions),
        el("h2", None, "Edit"),
        el(
            "form",
            {"method": "post", "action": f"{action}/edit", "id": "edit-form"},
            el("input", {"type": "hidden", "name": "csrf", "value": csrf}),
            el(
                "textarea",
                {"name": "content", "rows": 8, "id": "edit-content", "maxlength": 20000},
                m.content,
            ),
            el("button", {"type": "submit", "id": "save"}, "Save"),
        ),
        el("h2", None, "Provenance and use"),
        el("dl", {"class": "facts"}, *[fragment(el("dt", None, k), el("dd", None, v)) for k, v in facts]),
        el("h2", None, "Near duplicates"),
        el("p", {"class": "note"}, similar_note),
        table(
            ("memory", "similarity", "created"),
            [
                [
                    el("a", {"href": f"{base}/console/memories/{s['id']}"}, short(s["content"])),
                    f"{s['similarity']:.3f}",
                    when(s.get("created_at")),
                ]
                for s in similar
            ],
        ),
    )
