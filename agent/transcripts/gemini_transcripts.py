"""Gemini CLI's saved chats: `~/.gemini/tmp/<project id>/chats/session-*.json`.

A chat file holds `sessionId`, `startTime`, `lastUpdated` and its messages, but not its working
directory. The project id is the SHA-256 of the project's root (older versions) or the short id
`~/.gemini/projects.json` gives the root (`{"projects": {"<root>": "<id>"}}`, newer versions,
which move the hashed folders there), so the directory is known when it is one of the
directories given (`itachi backfill --from gemini` in the project, or `--project`) or is named
in that registry.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from agent.transcripts.session_file import SessionFile, modified_at, parse_time


def gemini_dir() -> Path:
    return Path.home() / ".gemini"


def default_root() -> Path:
    return gemini_dir() / "tmp"


def find(root: Path) -> list[Path]:
    return [root] if root.is_file() else sorted(root.rglob("chats/*.json"))


def registered_projects(registry: Path | None = None) -> dict[str, str]:
    """Project id -> project root, from the registry of the Gemini CLI versions that keep one."""
    data: object = {}
    with contextlib.suppress(OSError, ValueError):
        data = json.loads((registry or gemini_dir() / "projects.json").read_text(encoding="utf-8"))
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {str(short): str(root) for root, short in projects.items() if isinstance(short, str)}


def read(path: Path, known_dirs: Iterable[str] = (), registered: dict[str, str] | None = None) -> SessionFile:
    data: object = {}
    with contextlib.suppress(OSError, ValueError):
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    record = data if isinstance(data, dict) else {}
    by_id = {**(registered or {}), **{hashlib.sha256(d.encode()).hexdigest(): d for d in known_dirs}}
    folder = path.parent.parent.name
    cwd = by_id.get(folder) or by_id.get(str(record.get("projectHash") or ""))
    return SessionFile("gemini", path, str(record.get("sessionId") or path.stem), cwd,
                       parse_time(record.get("startTime")) or modified_at(path))
