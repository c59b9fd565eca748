"""Where Claude Code, Codex and Gemini CLI keep their settings, read and rewritten safely.

Both installers (`install_hooks`, `install_mcp`) merge into these files: a file that is not a
plain JSON object is refused rather than rewritten, and a file is replaced atomically and only
when its text changes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

# Our entries (hook commands, MCP servers) carry this argument: it tells them apart from the user's.
MARKER = "--itachi-client"
CLIENTS = ("claude", "codex", "gemini")
_DIRS = {"claude": ".claude", "codex": ".codex", "gemini": ".gemini"}
_FILES = {"claude": "settings.json", "codex": "hooks.json", "gemini": "settings.json"}
_HOME_ENV = {"claude": "CLAUDE_CONFIG_DIR", "codex": "CODEX_HOME", "gemini": ""}


class InstallError(Exception):
    """The settings file cannot be merged safely (unreadable, not a JSON object...)."""


def settings_path(scope: str, client: str, cwd: Path) -> Path:
    """Where client reads hooks: its user config dir, or <repo root>/.<client>/ for project."""
    if client not in CLIENTS or scope not in ("user", "project"):
        raise InstallError(f"unknown client {client!r} or scope {scope!r}")
    if scope == "project":
        return repo_root(cwd) / _DIRS[client] / _FILES[client]
    home_env = os.environ.get(_HOME_ENV[client]) if _HOME_ENV[client] else None
    base = Path(home_env).expanduser() if home_env else Path.home() / _DIRS[client]
    return base / _FILES[client]


def repo_root(cwd: Path) -> Path:
    """The working tree holding cwd (its own root for a git worktree), else cwd itself."""
    start = cwd.expanduser().absolute()
    return next((d for d in (start, *start.parents) if (d / ".git").exists()), start)


def load_settings(path: Path) -> dict[str, Any]:
    """The JSON object in path ({} for a missing or blank file); InstallError for anything else."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        settings = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise InstallError(f"{path} is not plain JSON ({exc}); add the hooks by hand") from exc
    if not isinstance(settings, dict):
        raise InstallError(f"{path} does not hold a JSON object")
    return settings


def save_settings(path: Path, settings: dict[str, Any]) -> None:
    write_if_changed(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")


def write_if_changed(path: Path, text: str) -> None:
    """Replace path's content atomically, and only if it changes (the file keeps its mtime otherwise)."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)
