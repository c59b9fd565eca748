"""Codex's rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl`.

The first record is `session_meta`, whose payload names the session's `id`, `cwd` and start
`timestamp`; an older rollout without one gives its id in its file name and its working
directory in the `<cwd>` of its environment context.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from agent.transcripts.session_file import SessionFile, modified_at, parse_time

HEAD_LINES = 50
_ID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")
_CWD = re.compile(r"<cwd>([^<]+)</cwd>")


def default_root() -> Path:
    home = os.environ.get("CODEX_HOME")
    return (Path(home).expanduser() if home else Path.home() / ".codex") / "sessions"


def find(root: Path) -> list[Path]:
    return [root] if root.is_file() else sorted(root.rglob("rollout-*.jsonl"))


def read(path: Path) -> SessionFile:
    named = _ID.search(path.name)
    session_id, cwd, started = named.group(1) if named else None, None, None
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle):
                if number >= HEAD_LINES or cwd:
                    break
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                meta = isinstance(record, dict) and record.get("type") == "session_meta"
                payload = record.get("payload") if meta else None
                if isinstance(payload, dict):
                    session_id = str(payload.get("id") or session_id or "") or None
                    cwd = str(payload.get("cwd") or "") or None
                    started = parse_time(payload.get("timestamp")) or parse_time(record.get("timestamp"))
                elif cwd is None and (found := _CWD.search(line)):
                    cwd = found.group(1).strip()
    except OSError:
        pass
    return SessionFile("codex", path, session_id or path.stem, cwd, started or modified_at(path))
