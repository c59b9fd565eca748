"""Machine-specific keys of `.env` files: stripped before a push, kept through a pull.

A key is machine-specific when it matches one of the patterns (`ITACHI_MACHINE_ID` always,
plus the configured ones; `*` wildcards allowed). Lines are `KEY=value`, optionally after
`export `; a quoted value may span lines. Everything else (comments, blank lines, other keys)
passes through unchanged. Pure functions over text.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence

ALWAYS_MACHINE_KEYS = ("ITACHI_MACHINE_ID",)
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+)?(?P<key>[A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(?P<value>.*)$")


def _entries(text: str) -> list[tuple[str | None, list[str]]]:
    """The file as (key or None, its lines), a multi-line quoted value kept with its key."""
    out: list[tuple[str | None, list[str]]] = []
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        match = _ASSIGNMENT.match(lines[i].rstrip("\r\n"))
        if match is None:
            out.append((None, [lines[i]]))
            i += 1
            continue
        group, value = [lines[i]], match.group("value")
        quote = value[:1] if value[:1] in {'"', "'"} else ""
        if quote and not _closes(value[1:], quote):
            while i + 1 < len(lines):
                i += 1
                group.append(lines[i])
                if _closes(lines[i], quote):
                    break
        out.append((match.group("key"), group))
        i += 1
    return out


def _closes(text: str, quote: str) -> bool:
    """Whether `text` holds the closing quote (not escaped with a backslash)."""
    return re.search(rf"(?<!\\){re.escape(quote)}", text) is not None


def is_machine_key(key: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(key, p) for p in (*ALWAYS_MACHINE_KEYS, *patterns))


def strip_machine_keys(text: str, patterns: Sequence[str] = ()) -> str:
    """The file without its machine-specific assignments (what is encrypted and pushed)."""
    kept = [line for key, lines in _entries(text) if key is None or not is_machine_key(key, patterns)
            for line in lines]
    return "".join(kept)


def machine_lines(text: str, patterns: Sequence[str] = ()) -> list[str]:
    """The machine-specific assignments of a file, as they are written there."""
    return [line for key, lines in _entries(text) if key is not None and is_machine_key(key, patterns)
            for line in lines]


def merge_machine_keys(incoming: str, local: str, patterns: Sequence[str] = ()) -> str:
    """The pulled file with this machine's own assignments kept (appended after the rest)."""
    base = strip_machine_keys(incoming, patterns)
    mine = machine_lines(local, patterns)
    if not mine:
        return base
    if base and not base.endswith("\n"):
        base += "\n"
    tail = "".join(mine)
    return base + (tail if tail.endswith("\n") else tail + "\n")
