"""Terminal sessions written where each engine keeps them (Claude Code, Codex, Gemini CLI), under
a home folder of the test's own, in each CLI's file format."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _touch(path: Path, mtime: float | None) -> Path:
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def claude_session(home: Path, cwd: Path, session_id: str, prompts: Sequence[str],
                   mtime: float | None = None) -> Path:
    """`~/.claude/projects/<cwd with every other character as ->/<id>.jsonl`."""
    folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(cwd))
    folder.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, Any]] = []
    for number, prompt in enumerate(prompts):
        stamp = f"2026-03-01T10:{number:02d}:00.000Z"
        lines.append({"type": "user", "sessionId": session_id, "cwd": str(cwd), "timestamp": stamp,
                      "message": {"role": "user", "content": prompt}})
        lines.append({"type": "assistant", "sessionId": session_id, "cwd": str(cwd), "timestamp": stamp,
                      "message": {"id": f"m{number}", "role": "assistant",
                                  "content": [{"type": "text", "text": f"done: {prompt}"}]}})
    path = folder / f"{session_id}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return _touch(path, mtime)


def codex_session(home: Path, cwd: Path, session_id: str, prompts: Sequence[str],
                  mtime: float | None = None) -> Path:
    """`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, its first line the session meta."""
    folder = home / ".codex" / "sessions" / "2026" / "03" / "01"
    folder.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, Any]] = [{"timestamp": "2026-03-01T10:00:00.000Z", "type": "session_meta",
                                    "payload": {"id": session_id, "cwd": str(cwd),
                                                "timestamp": "2026-03-01T10:00:00.000Z"}}]
    for prompt in prompts:
        lines.append({"timestamp": "2026-03-01T10:01:00.000Z", "type": "response_item",
                      "payload": {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": prompt}]}})
        lines.append({"timestamp": "2026-03-01T10:02:00.000Z", "type": "response_item",
                      "payload": {"type": "message", "role": "assistant",
                                  "content": [{"type": "output_text", "text": f"done: {prompt}"}]}})
    path = folder / f"rollout-2026-03-01T10-00-00-{session_id}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return _touch(path, mtime)


def gemini_session(home: Path, cwd: Path, session_id: str, prompts: Sequence[str],
                   mtime: float | None = None, registry_id: str | None = None) -> Path:
    """`~/.gemini/tmp/<SHA-256 of cwd>/chats/session-*.json`, or with `registry_id` the newer
    layout: `~/.gemini/tmp/<id>/chats/` with the id in `~/.gemini/projects.json`."""
    project = registry_id or hashlib.sha256(str(cwd).encode()).hexdigest()
    if registry_id:
        registry = home / ".gemini" / "projects.json"
        known = json.loads(registry.read_text()) if registry.exists() else {"projects": {}}
        known["projects"][str(cwd)] = registry_id
        registry.parent.mkdir(parents=True, exist_ok=True)
        registry.write_text(json.dumps(known))
    folder = home / ".gemini" / "tmp" / project / "chats"
    folder.mkdir(parents=True, exist_ok=True)
    messages: list[dict[str, Any]] = []
    for number, prompt in enumerate(prompts):
        stamp = f"2026-03-01T10:{number:02d}:00.000Z"
        messages += [{"id": f"u{number}", "timestamp": stamp, "type": "user", "content": [{"text": prompt}]},
                     {"id": f"g{number}", "timestamp": stamp, "type": "gemini", "content": f"done: {prompt}"}]
    record = {"sessionId": session_id, "projectHash": hashlib.sha256(str(cwd).encode()).hexdigest(),
              "startTime": "2026-03-01T10:00:00.000Z", "lastUpdated": "2026-03-01T10:05:00.000Z",
              "messages": messages}
    path = folder / f"session-2026-03-01T10-00-{session_id[:8]}.json"
    path.write_text(json.dumps(record, indent=2))
    return _touch(path, mtime)
