"""A checkout's sync state on this machine, and the spool of changes still to push.

The state records, per synced path, the version this machine has and the SHA-256 of its
plaintext as synced (machine keys stripped). That hash never leaves the machine: it only
tells a local edit (push it; or a conflict, if the server moved on) from an untouched file.
The pull cursor is the highest server `seq` applied. One worker at a time holds the lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chalicelib.contracts.sync_paths import cursor_file, pending_file, state_file


@dataclass
class Synced:
    version: int
    hash: str  # SHA-256 of the plaintext as synced: local only
    content_hash: str = ""  # SHA-256 of the ciphertext of that version


@dataclass
class SyncState:
    project: str
    root: str
    cursor: int = 0
    files: dict[str, Synced] = field(default_factory=dict)
    conflicts: dict[str, dict[str, Any]] = field(default_factory=dict)


def plaintext_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
    os.replace(temp, path)


def load_state(home: Path, project: str, root: Path) -> SyncState:
    try:
        data = json.loads(state_file(home, project, root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return SyncState(project, str(root))
    files = {p: Synced(int(v["version"]), str(v["hash"]), str(v.get("content_hash", "")))
             for p, v in dict(data.get("files") or {}).items()}
    return SyncState(project, str(root), int(data.get("cursor") or 0), files,
                     dict(data.get("conflicts") or {}))


def save_state(home: Path, state: SyncState) -> None:
    _write_json(state_file(home, state.project, state.root), {
        "project": state.project, "root": state.root, "cursor": state.cursor,
        "files": {p: vars(s) for p, s in sorted(state.files.items())}, "conflicts": state.conflicts})
    _write_json(cursor_file(home, state.project, state.root), state.cursor)


def pending_paths(home: Path, project: str, root: Path) -> list[str]:
    try:
        data = json.loads(pending_file(home, project, root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(p) for p in data.get("paths") or []]


def add_pending(home: Path, project: str, root: Path, paths: list[str]) -> None:
    """Spool paths to push (they stay until a push of them succeeds)."""
    merged = sorted(set(pending_paths(home, project, root)) | set(paths))
    _write_json(pending_file(home, project, root), {"project": project, "root": str(root), "paths": merged})


def clear_pending(home: Path, project: str, root: Path, paths: set[str]) -> None:
    left = [p for p in pending_paths(home, project, root) if p not in paths]
    target = pending_file(home, project, root)
    if left:
        _write_json(target, {"project": project, "root": str(root), "paths": left})
    else:
        with contextlib.suppress(FileNotFoundError):
            target.unlink()


@contextlib.contextmanager
def checkout_lock(home: Path, project: str, root: Path) -> Iterator[None]:
    """Hold the checkout's sync lock (one push or pull at a time); a no-op without fcntl."""
    lock_path = state_file(home, project, root).with_suffix(".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows: the worker runs at most once per hook anyway
        yield
        return
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
