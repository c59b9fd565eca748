"""Claude Code's transcripts: `~/.claude/projects/<encoded cwd>/<session id>.jsonl`.

Each line is one record; the records of a session carry its `sessionId`, its `cwd` and a
`timestamp`. Subagent transcripts (`agent-*.jsonl`) belong to their parent session: skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent.transcripts.session_file import SessionFile, modified_at, parse_time

HEAD_LINES = 200  # the identifying fields appear in the first records


def default_root() -> Path:
    from hooks.memory_md import claude_config_dir

    return claude_config_dir() / "projects"


def find(root: Path) -> list[Path]:
    """The session files under `root` (a projects folder, one project's folder, or one file)."""
    if root.is_file():
        return [root]
    files = sorted(root.glob("*.jsonl")) + sorted(root.glob("*/*.jsonl"))
    return [f for f in files if not f.name.startswith("agent-")]


def read(path: Path) -> SessionFile:
    session_id, cwd, started = None, None, None
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle):
                if number >= HEAD_LINES or (session_id and cwd and started):
                    break
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(record, dict):
                    continue
                session_id = session_id or _text(record.get("sessionId"))
                cwd = cwd or _text(record.get("cwd"))
                if record.get("type") in ("user", "assistant"):
                    started = started or parse_time(record.get("timestamp"))
    except OSError:
        pass
    return SessionFile("claude", path, session_id or path.stem, cwd, started or modified_at(path))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
