"""Which files of a project sync, and how their paths are written. Stdlib only.

Paths are relative to the repository root, with `/` separators, never absolute, never with
`..`, and never inside `.git`. The allow-list is a list of patterns where `*` matches within one
path segment and `**` matches any number of segments (`.claude/skills/**`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath

DEFAULT_INCLUDE: tuple[str, ...] = (
    ".env", ".env.*", "**/.env", "**/.env.*",
    "CLAUDE.md", "CLAUDE.local.md",
    ".claude/settings.json", ".claude/settings.local.json", ".claude/skills/**",
    "notes/**", "NOTES.md",
)
NEVER = (".git",)  # a path with one of these segments never syncs, whatever the patterns say
MAX_PATH_CHARS = 400


class BadSyncPath(ValueError):
    """The path cannot name a synced file (absolute, escaping the root, inside .git, ...)."""


def normalise(path: str) -> str:
    """The canonical form of a synced file's path; raise BadSyncPath when it cannot be one."""
    text = path.replace("\\", "/").strip()
    if not text or len(text) > MAX_PATH_CHARS:
        raise BadSyncPath(f"a path of 1-{MAX_PATH_CHARS} characters is required")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        raise BadSyncPath(f"{path!r} is absolute; paths are relative to the repository root")
    parts = [p for p in PurePosixPath(text).parts if p != "."]
    if not parts or ".." in parts:
        raise BadSyncPath(f"{path!r} leaves the repository root")
    if any(p in NEVER for p in parts):
        raise BadSyncPath(f"{path!r} is inside .git, which never syncs")
    if any("\x00" in p or p.strip() != p for p in parts):
        raise BadSyncPath(f"{path!r} has a control character or padded segment")
    return "/".join(parts)


def matches(path: str, pattern: str) -> bool:
    """Whether a normalised path matches one allow-list pattern (`**` spans segments)."""
    return _match(path.split("/"), [p for p in pattern.strip("/").split("/") if p])


def _match(parts: Sequence[str], pats: Sequence[str]) -> bool:
    if not pats:
        return not parts
    import fnmatch  # lazily: the session-start hook's fast path never matches patterns

    head, rest = pats[0], pats[1:]
    if head == "**":
        return any(_match(parts[i:], rest) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], head) and _match(parts[1:], rest)


def is_synced(path: str, include: Iterable[str] = DEFAULT_INCLUDE, exclude: Iterable[str] = ()) -> bool:
    """Whether the file at `path` (relative to the root, any separators) is on the allow-list."""
    try:
        clean = normalise(path)
    except BadSyncPath:
        return False
    return any(matches(clean, p) for p in include) and not any(matches(clean, p) for p in exclude)


def is_env_file(path: str) -> bool:
    """`.env` and `.env.<anything>`: the files whose machine-specific keys stay on the machine."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name == ".env" or name.startswith(".env.")


def repo_root(start: str | Path) -> Path | None:
    """The top of the working tree holding `start` (a worktree's own root, not the main checkout)."""
    here = Path(start).expanduser().absolute()
    for directory in (here, *here.parents):
        if (directory / ".git").exists():
            return directory
    return None


def local_key(project: str, root: Path | str) -> str:
    """The name of a checkout's sync state on its machine (one per project and working tree).

    CRC-32s, not a cryptographic hash: it only has to tell a user's checkouts apart, and the
    session-start hook then never loads OpenSSL.
    """
    import zlib

    return f"{zlib.crc32(project.encode()):08x}{zlib.crc32(str(Path(root)).encode()):08x}"


def state_file(home: Path, project: str, root: Path | str) -> Path:
    """Where the machine keeps a checkout's sync state (cursor, versions, hashes of its own files)."""
    return home / "sync" / "state" / f"{local_key(project, root)}.json"


def cursor_file(home: Path, project: str, root: Path | str) -> Path:
    """The checkout's pull cursor alone, so the session-start hook reads a number, not the state."""
    return home / "sync" / "state" / f"{local_key(project, root)}.cursor"


def pending_file(home: Path, project: str, root: Path | str) -> Path:
    """The spool of a checkout's changed files that still have to be pushed."""
    return home / "sync" / "pending" / f"{local_key(project, root)}.json"


def key_path(env: Mapping[str, str] | None = None) -> Path:
    """The machine's sync passphrase file: $ITACHI_SYNC_KEY_FILE, else ~/.itachi-key."""
    env = os.environ if env is None else env
    explicit = env.get("ITACHI_SYNC_KEY_FILE", "").strip()
    return Path(explicit).expanduser() if explicit else Path.home() / ".itachi-key"
