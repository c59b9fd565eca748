"""HTML of the read-only pages: rules and lessons, sessions, machines, spend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.console.domain.html import Child, Markup, el, fragment, json_data
from chalicelib.console.pages.layout import post_button, short, table, when


def project_filter(action: str, project: str, projects: list[dict[str, Any]]) -> Markup:
    return el(
        "form",
        {"method": "get", "action": action, "class": "filters"},
        el(
            "select",
            {"name": "project"},
            el("option", {"value": ""}, "all projects"),
            *[
                el("option", {"value": p["project"], "selected": p["project"] == project}, p["project"])
                for p in projects
            ],
        ),
        el("button", {"type": "submit"}, "Show"),
    )


def rule_clashes(base: str, csrf: str, clashes: list[dict[str, Any]]) -> Markup:
    """Flagged rules waiting for a person, with the graph contradictions' three buttons."""
    if not clashes:
        return fragment()
    choices = {"keep_new": "Keep new", "keep_old": "Keep old", "keep_both": "Keep both"}
    return fragment(el("h2", None, "Flagged rules"), table(
        ("new", "old", "project", "why", "settle"),
        [[short(c["new"]["content"], 300), short(c["old"]["content"], 300), c["project"], c["reason"],
          fragment(*[post_button(f"{base}/console/learning/clashes/{c['id']}/{r}", csrf, label)
                     for r, label in choices.items()])]
         for c in clashes],
        id_="clash-table",
    ))


def learned(base: str, rows: list[dict[str, Any]], history: dict[str, list[dict[str, Any]]],
            actions: Callable[[dict[str, Any]], Child]) -> Markup:
    def outcomes(r: dict[str, Any]) -> str:
        if r.get("applications") is None:
            return "—"
        return (
            f"{r['successes']}/{r['applications']} succeeded, feedback +{r['good_feedback']}"
            f" -{r['bad_feedback']}"
        )

    def trail(lesson_id: str) -> Markup:
        steps = history.get(lesson_id) or []
        if not steps:
            return el("span", {"class": "note"}, "no changes yet")
        return el(
            "ul",
            {"class": "history"},
            *[
                el(
                    "li",
                    None,
                    f"{when(s['created_at'])}: {s['kind']} {s['confidence_before']:.2f} → "
                    f"{s['confidence_after']:.2f}",
                    f" (task {s['task_id']})" if s.get("task_id") else "",
                )
                for s in steps[:8]
            ],
        )

    return table(
        ("rule or lesson", "project", "kind", "confidence", "reinforced", "outcomes", "history", ""),
        [
            [
                el("a", {"href": f"{base}/console/memories/{r['id']}"}, short(r["content"], 300)),
                r["project"],
                r["category"],
                f"{r['confidence']:.2f}",
                r["times_reinforced"],
                outcomes(r),
                trail(r["id"]),
                actions(r),
            ]
            for r in rows
        ],
        id_="learned-table",
    )


def sessions(rows: list[dict[str, Any]]) -> Markup:
    by_project: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_project.setdefault(r["project"], []).append(r)
    if not by_project:
        return el("p", {"class": "empty"}, "No sessions yet.")
    return fragment(
        *[
            fragment(
                el("h2", None, project),
                el(
                    "ol",
                    {"class": "timeline"},
                    *[
                        el(
                            "li",
                            None,
                            el("strong", None, when(s["started_at"])),
                            f" · {s['client']} · ",
                            f"{s['prompts']} prompts · {s['edits']} edits",
                            f" · ended {when(s['ended_at'])} ({s['end_reason'] or 'ended'})"
                            if s["ended_at"]
                            else " · open",
                            el(
                                "div",
                                {"class": "hot"},
                                "hot files: ",
                                ", ".join(s["hot_files"] or s["files_changed"] or []) or "—",
                            ),
                            el("pre", {"class": "content"}, s["summary"] or "no summary yet"),
                        )
                        for s in items
                    ],
                ),
            )
            for project, items in by_project.items()
        ]
    )


def machines(rows: list[dict[str, Any]], running: dict[str, list[str]]) -> Markup:
    return table(
        ("machine", "status", "last heartbeat", "engines", "running tasks", "projects", "host"),
        [
            [
                m["id"],
                el("span", {"class": f"status {m['status']}"}, m["status"]),
                f"{when(m['last_heartbeat_at'])} ({m['seconds_since_heartbeat']} s ago)",
                ", ".join(m["engine_priority"]) or "—",
                f"{m['active_tasks']}/{m['max_concurrent']}: "
                + (", ".join(running.get(m["id"], [])) or "none"),
                ", ".join(m["projects"]) or "any",
                m.get("hostname") or "—",
            ]
            for m in rows
        ],
        id_="machine-table",
    )


def spend(report: dict[str, Any], embeddings: list[dict[str, Any]]) -> Markup:
    today = report["today"]
    chart_data = {
        "budget_usd": today["budget_usd"],
        "days": report["days"],
        "embeddings": [{**e, "day": str(e["day"])} for e in embeddings],
    }
    summary = (
        f"Today: ${today['spent_usd']:.4f} of ${today['budget_usd']:.2f}"
        f" ({today['spent_tokens']} tokens); LLM {'on' if report['llm']['enabled'] else 'off'}"
        + (f", model {report['llm']['model']}" if report["llm"]["model"] else "")
    )
    rows = [
        [
            str(d["day"]),
            d["purpose"],
            d["calls"],
            d["failed"],
            d["prompt_tokens"] + d["completion_tokens"],
            f"${d['cost_usd']:.4f}",
        ]
        for d in report["days"]
    ]
    return fragment(
        el("p", {"id": "spend-summary"}, summary),
        el("div", {"class": "chart"}, el("canvas", {"id": "spend-chart", "aria-label": "LLM spend by day"})),
        el(
            "div",
            {"class": "chart"},
            el("canvas", {"id": "embedding-chart", "aria-label": "embeddings by day"}),
        ),
        json_data("spend-data", chart_data),
        el("h2", None, "By day and purpose"),
        table(("day", "purpose", "calls", "failed", "tokens", "cost"), rows, id_="spend-table"),
    )
