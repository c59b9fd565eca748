"""The frame every console page shares: head (assets, htmx config), navigation, sign-out form."""

from __future__ import annotations

import json
from datetime import datetime

from chalicelib.console.domain.html import Child, Markup, el, fragment, text

NAV = (
    ("Memories", "/console/memories"),
    ("Prompt preview", "/console/context"),
    ("Review", "/console/review"),
    ("Rules & lessons", "/console/learning"),
    ("Sessions", "/console/sessions"),
    ("Tasks", "/console/tasks"),
    ("Machines", "/console/machines"),
    ("Spend", "/console/spend"),
    ("Graph", "/console/graph"),
    ("Brain", "/console/brain"),
)
HTMX_CONFIG = json.dumps(
    {
        "includeIndicatorStyles": False,
        "allowEval": False,
        "allowScriptTags": False,
        "selfRequestsOnly": True,
        "historyCacheSize": 0,
    }
)


def head(base: str, title: str) -> Markup:
    return el(
        "head",
        None,
        el("meta", {"charset": "utf-8"}),
        el("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}),
        el("meta", {"name": "htmx-config", "content": HTMX_CONFIG}),
        el("title", None, f"{title} · Itachi"),
        el("link", {"rel": "stylesheet", "href": base + "/console/assets/console.css"}),
        el("script", {"src": base + "/console/assets/htmx.min.js", "defer": True}),
        el("script", {"src": base + "/console/assets/chart.umd.min.js", "defer": True}),
        el("script", {"src": base + "/console/assets/console.js", "defer": True}),
    )


def page(base: str, csrf: str, who: str, title: str, *body: Child) -> str:
    nav = el(
        "nav",
        None,
        el("strong", None, "Itachi"),
        *[el("a", {"href": base + path}, label) for label, path in NAV],
        el("span", {"class": "who"}, who),
        el(
            "form",
            {"method": "post", "action": base + "/console/logout", "class": "inline"},
            hidden_csrf(csrf),
            el("button", {"type": "submit", "id": "sign-out"}, "Sign out"),
        ),
    )
    document = el(
        "html",
        {"lang": "en"},
        head(base, title),
        el(
            "body",
            {"hx-headers": json.dumps({"X-CSRF-Token": csrf})},
            nav,
            el("main", None, el("h1", None, title), *body),
        ),
    )
    return "<!doctype html>\n" + document


def bare_page(base: str, title: str, *body: Child) -> str:
    document = el(
        "html",
        {"lang": "en"},
        head(base, title),
        el("body", None, el("main", {"class": "narrow"}, el("h1", None, title), *body)),
    )
    return "<!doctype html>\n" + document


def hidden_csrf(csrf: str) -> Markup:
    return el("input", {"type": "hidden", "name": "csrf", "value": csrf})


def post_button(action: str, csrf: str, label: str, *, confirm: str | None = None, **fields: str) -> Markup:
    return el(
        "form",
        {"method": "post", "action": action, "class": "inline", "data-confirm": confirm},
        hidden_csrf(csrf),
        *[el("input", {"type": "hidden", "name": k, "value": v}) for k, v in fields.items()],
        el("button", {"type": "submit"}, label),
    )


def when(moment: datetime | str | None) -> str:
    if moment is None:
        return "—"
    if isinstance(moment, str):
        return moment
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def table(headers: tuple[str, ...], rows: list[list[Child]], *, id_: str | None = None) -> Markup:
    if not rows:
        return el("p", {"class": "empty", "id": id_}, "Nothing here yet.")
    return el(
        "table",
        {"id": id_},
        el("thead", None, el("tr", None, *[el("th", None, h) for h in headers])),
        el("tbody", None, *[el("tr", None, *[el("td", None, c) for c in row]) for row in rows]),
    )


def short(value: object, limit: int = 240) -> str:
    s = "" if value is None else str(value)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def flash(message: str | None) -> Markup:
    return el("p", {"class": "flash", "role": "status"}, message) if message else fragment()


def status_filter(statuses: list[str], current: str | None, *extra: Child, label: str = "Show") -> Markup:
    """A GET form choosing one status (or any), with more fields after it."""
    return el(
        "form",
        {"method": "get", "class": "filters"},
        el(
            "select",
            {"name": "status"},
            el("option", {"value": ""}, "any status"),
            *[el("option", {"value": s, "selected": s == current}, s) for s in statuses],
        ),
        *extra,
        el("button", {"type": "submit"}, label),
    )


__all__ = [
    "Markup",
    "bare_page",
    "el",
    "flash",
    "fragment",
    "hidden_csrf",
    "page",
    "post_button",
    "short",
    "status_filter",
    "table",
    "text",
    "when",
]
