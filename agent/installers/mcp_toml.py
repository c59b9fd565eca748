"""Edit one `[mcp_servers.<name>]` table of Codex's config.toml, keeping every other line as is.

The standard library reads TOML but does not write it: the table is removed and appended as
text, and the result is parsed again before it replaces the file.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.installers.client_settings import InstallError, write_if_changed

_HEADER = re.compile(r"^\s*\[\[?\s*(?P<name>[^\[\]]+?)\s*\]\]?\s*(#.*)?$")


def render_server(name: str, entry: dict[str, Any]) -> str:
    """The TOML table for one stdio server (JSON strings are valid TOML basic strings)."""
    lines = [f"[mcp_servers.{name}]"]
    lines += [f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in entry.items()
              if isinstance(value, str | list)]
    return "\n".join(lines) + "\n"


def _parse(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); add the MCP server by hand") from exc


def _without_table(text: str, name: str) -> str:
    """text minus the lines of [mcp_servers.<name>] and its sub-tables."""
    table = f"mcp_servers.{name}"
    kept, skipping = [], False
    for line in text.splitlines(keepends=True):
        header = _HEADER.match(line)
        if header:
            title = header.group("name").replace(" ", "")
            skipping = title == table or title.startswith(table + ".")
        if not skipping:
            kept.append(line)
    return "".join(kept)


def write_server(path: Path, name: str, entry: dict[str, Any], is_ours: Callable[[Any], bool]) -> None:
    """Put our [mcp_servers.<name>] table in path; InstallError if someone else's holds the name."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    existing = _parse(path, text).get("mcp_servers", {}).get(name)
    if existing is not None and not is_ours(existing):
        raise InstallError(f"{path} already has an MCP server named {name!r} that Itachi did not write")
    body = _without_table(text, name).rstrip("\n")
    updated = (body + "\n\n" if body else "") + render_server(name, entry)
    if _parse(path, updated).get("mcp_servers", {}).get(name) != entry:
        raise InstallError(f"{path} defines mcp_servers in a form Itachi cannot edit; add it by hand")
    write_if_changed(path, updated)


def remove_server(path: Path, name: str, is_ours: Callable[[Any], bool]) -> None:
    """Drop our [mcp_servers.<name>] table from path, if it is there and ours."""
    text = path.read_text(encoding="utf-8")
    if not is_ours(_parse(path, text).get("mcp_servers", {}).get(name)):
        return
    updated = _without_table(text, name).rstrip("\n")
    if name in _parse(path, updated).get("mcp_servers", {}):
        raise InstallError(f"{path} defines mcp_servers in a form Itachi cannot edit; remove it by hand")
    write_if_changed(path, updated + "\n" if updated else "")
