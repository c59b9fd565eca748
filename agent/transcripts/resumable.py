"""The latest terminal sessions of a folder, read from each engine's own session store, for
`/continue`: which one to pick up from Telegram.

Each engine's module finds its files and reads where a session ran; this keeps the sessions
that ran in one of the folders asked about (the folder itself or below it), newest first, with
the first and last thing the user typed. Only the newest `SCAN` files of each store are looked
at, and each is read within `READ_BYTES` of its end, so a large store answers quickly. A store
that does not exist is simply empty.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from agent.folders import within
from agent.transcripts import claude_transcripts, codex_transcripts, gemini_transcripts
from agent.transcripts.session_file import SessionFile
from chalicelib.contracts.agent_api import ResumableEntry, ResumableListingRequest
from hooks.transcript import read_transcript

SCAN = 200
READ_BYTES = 4_000_000
EXCERPT = 160


@dataclass(frozen=True)
class ResumableSession:
    """A terminal session an engine can resume: its id in that engine's own store."""

    engine: str
    session_id: str
    cwd: str
    last_active: datetime
    first_message: str
    last_message: str


def recent_sessions(folders: Sequence[Path], limit: int = 8) -> list[ResumableSession]:
    """The newest sessions of every engine whose working directory is in `folders` (resolved)."""
    found: dict[tuple[str, str], ResumableSession] = {}
    for files, read in _stores(folders):
        for path in _newest(files):
            session = read(path)
            cwd = _inside(session.cwd, folders)
            if cwd is not None and (session.engine, session.session_id) not in found:
                found[(session.engine, session.session_id)] = _described(session, cwd, path)
    return sorted(found.values(), key=lambda s: s.last_active, reverse=True)[:limit]


def _stores(folders: Sequence[Path]) -> list[tuple[list[Path], Callable[[Path], SessionFile]]]:
    """Each engine's session files and its reader."""
    known = [str(f) for f in folders]
    registered = gemini_transcripts.registered_projects()
    return [
        (_files(claude_transcripts.find, claude_transcripts.default_root()), claude_transcripts.read),
        (_files(codex_transcripts.find, codex_transcripts.default_root()), codex_transcripts.read),
        (_files(gemini_transcripts.find, gemini_transcripts.default_root()),
         lambda path: gemini_transcripts.read(path, known, registered)),
    ]


def _files(find: Callable[[Path], list[Path]], root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    try:
        return find(root)
    except OSError:
        return []


def _newest(paths: Iterable[Path]) -> list[Path]:
    stamped: list[tuple[float, Path]] = []
    for path in paths:
        with contextlib.suppress(OSError):
            stamped.append((path.stat().st_mtime, path))
    return [p for _, p in sorted(stamped, key=lambda item: item[0], reverse=True)[:SCAN]]


def _inside(cwd: str | None, folders: Sequence[Path]) -> str | None:
    """cwd (resolved) if it is one of the folders or lies below one."""
    if not cwd:
        return None
    try:
        path = Path(cwd).expanduser().resolve()
    except (OSError, RuntimeError):
        return None
    return str(path) if any(path == f or f in path.parents for f in folders) else None


def _described(session: SessionFile, cwd: str, path: Path) -> ResumableSession:
    transcript = read_transcript(path, max_bytes=READ_BYTES)
    said = [str(t["text"]) for t in transcript.turns if t["role"] == "user"]
    try:
        active = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        active = session.started_at or datetime.now(UTC)
    return ResumableSession(session.engine, session.session_id, cwd, active,
                            _excerpt(said[0] if said else ""), _excerpt(said[-1] if said else ""))


def _excerpt(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= EXCERPT else line[:EXCERPT - 1] + "…"


def resumable_listing(machine_id: str, roots: tuple[Path, ...], path: str) -> ResumableListingRequest:
    """The answer to /continue: the sessions of `path` ("" every configured folder), or why not.
    The folder must be one of this machine's configured roots or lie under one."""
    if not path:
        folders = roots
    else:
        raw = Path(path).expanduser()
        if not raw.is_absolute():
            return ResumableListingRequest(machine_id, path, error="not an absolute path")
        resolved = raw.resolve()
        if within(resolved, roots) is None:
            return ResumableListingRequest(machine_id, path,
                                           error="outside this machine's configured folders")
        if not resolved.is_dir():
            return ResumableListingRequest(machine_id, str(resolved), error="not a folder")
        folders, path = (resolved,), str(resolved)
    sessions = [ResumableEntry(s.engine, s.session_id, s.cwd, s.last_active.isoformat(), s.first_message,
                               s.last_message) for s in recent_sessions(folders)]
    return ResumableListingRequest(machine_id, path, sessions)
