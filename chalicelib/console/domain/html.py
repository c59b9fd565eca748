"""HTML built by escaping: every value is text unless it is already `Markup` made here.

Pages are composed with `el(tag, attrs, *children)`: strings among the children and every
attribute value are escaped, so stored text (memories hold whatever agents and users wrote) can
only ever render as text. `Markup` marks a fragment this module produced; nothing else makes one.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping
from typing import Any

VOID = frozenset({"meta", "link", "input", "br", "hr", "img"})
_ATTR_NAME = frozenset("abcdefghijklmnopqrstuvwxyz-0123456789")
_SAFE_URL_SCHEMES = ("/", "?", "#", "http://", "https://")


class Markup(str):
    """A fragment of HTML produced by this module (already escaped)."""


Child = Any  # str | Markup | int | float | None | Iterable of those


def text(value: object) -> Markup:
    return Markup(html.escape("" if value is None else str(value), quote=True))


def _children(children: Iterable[Child]) -> str:
    out: list[str] = []
    for child in children:
        if child is None or child is False:
            continue
        if isinstance(child, Markup):
            out.append(child)
        elif isinstance(child, str | int | float):
            out.append(text(child))
        else:
            out.append(_children(child))
    return "".join(out)


def safe_url(url: str) -> str:
    """A link target: relative or http(s) only (a stored `javascript:` becomes a harmless '#')."""
    stripped = url.strip()
    if stripped.startswith(("//", "/\\")):  # protocol-relative: another site
        return "#"
    return stripped if stripped.lower().startswith(_SAFE_URL_SCHEMES) else "#"


def el(tag: str, attrs: Mapping[str, Any] | None = None, *children: Child) -> Markup:
    parts = [tag]
    for name, value in (attrs or {}).items():
        if value is None or value is False:
            continue
        name = name.rstrip("_").replace("_", "-")
        if not name or set(name) - _ATTR_NAME:
            raise ValueError(f"bad attribute name {name!r}")
        if name in ("href", "src", "action") and isinstance(value, str):
            value = safe_url(value)
        parts.append(name if value is True else f'{name}="{text(value)}"')
    opening = "<" + " ".join(parts) + ">"
    if tag in VOID:
        return Markup(opening)
    return Markup(f"{opening}{_children(children)}</{tag}>")


def fragment(*children: Child) -> Markup:
    return Markup(_children(children))


def json_data(element_id: str, value: Any) -> Markup:
    """Data for the page's script as a non-executable JSON block (`<` escaped: no tag can close it)."""
    payload = (
        json.dumps(value, default=str).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    )
    return Markup(f'<script type="application/json" id="{text(element_id)}">{payload}</script>')
