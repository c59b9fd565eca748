"""Gemini CLI's saved chats: `~/.gemini/tmp/<project hash>/chats/session-*.json`.

A chat file holds `sessionId`, `startTime` and its messages, but not its working directory:
the folder is named by the SHA-256 of the project's root, so the directory is known when it is
one of the directories given (`itachi backfill --from gemini` in the project, or `--project`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from agent.transcripts.session_file import SessionFile, modified_at, parse_time


def default_root() -> Path:
    return Path.home() / ".gemini" / "tmp"


def find(root: Path) -> list[Path]:
    return [root] if root.is_file() else sorted(root.rglob("chats/*.json"))


def read(path: Path, known_dirs: Iterable[str] = ()) -> SessionFile:
    data: object = {}
    with contextlib.suppress(OSError, ValueError):
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    record = data if isinstance(data, dict) else {}
    by_hash = {hashlib.sha256(d.encode()).hexdigest(): d for d in known_dirs}
    project_hash = str(record.get("projectHash") or path.parent.parent.name)
    return SessionFile("gemini", path, str(record.get("sessionId") or path.stem), by_hash.get(project_hash),
                       parse_time(record.get("startTime")) or modified_at(path))
