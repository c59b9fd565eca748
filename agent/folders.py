"""Folder listings for the session picker, confined to this machine's configured roots.

The server only relays what the user picked; this is where every path is checked. A path is
resolved (symlinks and `..` included) and must be one of the roots or lie under one, or the
listing is refused. Only folder names are returned (never file names or contents), hidden
folders are left out, and a page holds at most `PAGE` entries of at most `SCAN_LIMIT` looked at.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from chalicelib.contracts.agent_api import FolderEntry, FolderListingRequest

PAGE = 30
SCAN_LIMIT = 5000


def configured_roots(raw: str, repos: Iterable[str]) -> tuple[Path, ...]:
    """ITACHI_AGENT_ROOTS (comma-separated folders) and the project repos, resolved, existing, once each."""
    found: list[Path] = []
    for item in [*raw.split(","), *repos]:
        if not item.strip():
            continue
        path = Path(item.strip()).expanduser().resolve()
        if path.is_dir() and path not in found:
            found.append(path)
    return tuple(found)


def within(path: Path, roots: tuple[Path, ...]) -> Path | None:
    """The root that holds `path` (itself included), if any."""
    for root in roots:
        if path == root or root in path.parents:
            return root
    return None


def list_folder(machine_id: str, roots: tuple[Path, ...], path: str, offset: int = 0) -> FolderListingRequest:
    """List `path` ("" is the top: the roots themselves) or refuse it."""
    offset = max(0, offset)

    def refused(shown: str, why: str) -> FolderListingRequest:
        return FolderListingRequest(machine_id, shown, None, [], 0, offset, why)

    if not path:
        entries = [FolderEntry(str(root), _is_repo(root)) for root in roots]
        page = entries[offset:offset + PAGE]
        return FolderListingRequest(machine_id, "", None, page, len(entries), offset)
    raw = Path(path).expanduser()
    if not raw.is_absolute():
        return refused(path, "not an absolute path")
    resolved = raw.resolve()
    root = within(resolved, roots)
    if root is None:
        return refused(path, "outside this machine's configured folders")
    if not resolved.is_dir():
        return refused(str(resolved), "not a folder")
    names: list[str] = []
    try:
        with os.scandir(resolved) as scan:
            for count, entry in enumerate(scan):
                if count >= SCAN_LIMIT:
                    break
                if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                    names.append(entry.name)
    except OSError as exc:
        return refused(str(resolved), f"cannot read it: {exc.strerror}")
    names.sort(key=str.lower)
    parent = "" if resolved == root else str(resolved.parent)
    page = [FolderEntry(name, _is_repo(resolved / name)) for name in names[offset:offset + PAGE]]
    return FolderListingRequest(machine_id, str(resolved), parent, page, len(names), offset)


def _is_repo(path: Path) -> bool:
    return (path / ".git").exists()
