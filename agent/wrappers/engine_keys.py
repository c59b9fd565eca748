"""The engines' credentials for wrapper runs: `~/.itachi-api-keys` and, over SSH, Claude's token.

`~/.itachi-api-keys` holds `NAME=value` lines (blank lines, `#` comments and a leading `export`
are allowed; quotes around a value are dropped). A name already set in the environment keeps
its value. `CLAUDE_CODE_OAUTH_TOKEN` is never taken from this file: it would switch an
interactive Claude Code from the subscription login to API billing.

Over SSH (`SSH_CONNECTION` or `SSH_CLIENT` set) there is no credential store, so a Claude run
takes `CLAUDE_CODE_OAUTH_TOKEN` from `<claude config dir>/.auth-token` (unless the environment
already has one) and keeps it even when interactive.

Both files hold secrets: one another user could read (or that belongs to someone else) is
refused with `KeyFileError`, which says how to fix it, rather than used.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

KEYS_FILE = ".itachi-api-keys"
AUTH_TOKEN_FILE = ".auth-token"
OAUTH_TOKEN = "CLAUDE_CODE_OAUTH_TOKEN"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class KeyFileError(Exception):
    """A credentials file that must not be used as it is; the message says why and what to do."""


def keys_path(home: Path | None = None) -> Path:
    return (home or Path.home()) / KEYS_FILE


def over_ssh(env: Mapping[str, str]) -> bool:
    return bool(env.get("SSH_CONNECTION") or env.get("SSH_CLIENT"))


def private_text(path: Path) -> str | None:
    """The file's text, None if it does not exist; refused unless only its owner can read it."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        raise KeyFileError(f"{path} is readable by other users (mode {mode:04o}); it holds secrets, "
                           f"so it is not loaded. Run: chmod 600 {path}")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise KeyFileError(f"{path} belongs to another user; it is not loaded")
    return path.read_text(encoding="utf-8")


def parse_keys(text: str) -> dict[str, str]:
    """`NAME=value` lines to a dict; malformed lines are skipped."""
    keys: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export "):].lstrip()
        name, sep, value = line.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not _NAME.fullmatch(name):
            continue
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        keys[name] = value
    return keys


def engine_credentials(client: str, env: Mapping[str, str], claude_dir: Path,
                       home: Path | None = None) -> dict[str, str]:
    """What the wrapper adds to the engine's environment (names already set are left alone)."""
    added: dict[str, str] = {}
    text = private_text(keys_path(home))
    if text is not None:
        for name, value in parse_keys(text).items():
            if name != OAUTH_TOKEN and name not in env:
                added[name] = value
    if client == "claude" and over_ssh(env) and not env.get(OAUTH_TOKEN):
        token = private_text(claude_dir / AUTH_TOKEN_FILE)
        if token and token.strip():
            added[OAUTH_TOKEN] = token.strip()
    return added
