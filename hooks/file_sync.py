"""Encrypted file sync from the hooks: SessionStart pulls, PostToolUse pushes edited synced files.

Hooks never encrypt (that needs `cryptography`): they ask the cheap question and hand the work
to the sync worker (`agent.sync.worker`). SessionStart adds one metadata GET ("anything newer
than my cursor?") to the reads it makes in parallel anyway, and starts the worker only when
the answer is yes or a push waits in the spool; it waits for it within its own deadline, after
which the worker finishes alone. Without a sync key (`itachi sync init`) nothing happens.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from chalicelib.contracts.sync_paths import cursor_file, key_path, pending_file, repo_root

TYPE_CHECKING = False  # typing itself is not imported at run time (hooks.launch)
if TYPE_CHECKING:
    from typing import Any

    from hooks.runtime import HookContext

# Imported where used: a session start with nothing to sync pays for none of them (subprocess,
# the allow-list's dataclasses, the envelope's hashlib).

WORKER = "agent.sync.worker"
MAX_WAIT_S = 2.0
MARGIN_S = 0.15  # left to the hook for its own output after waiting


def enabled() -> bool:
    return os.environ.get("ITACHI_SYNC", "1") != "0" and key_path().is_file()


def _root(ctx: HookContext) -> Path:
    return repo_root(ctx.cwd) or Path(ctx.cwd).absolute()


def _cursor(ctx: HookContext, root: Path) -> int:
    try:
        return int(json.loads(cursor_file(ctx.config.home, ctx.project, root).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return 0


def changes_request(ctx: HookContext) -> tuple[str, dict[str, Any]] | None:
    """The GET that asks whether other machines pushed since this checkout's cursor (None: sync off)."""
    if not enabled():
        return None
    return "/api/sync/files", {"project": ctx.project, "since": _cursor(ctx, _root(ctx))}


def pull_if_needed(ctx: HookContext, answer: dict[str, Any] | None) -> None:
    """Start the worker when there is something to pull or push; wait within the deadline."""
    root = _root(ctx)
    news = bool(answer and answer.get("files"))
    spooled = pending_file(ctx.config.home, ctx.project, root).exists()
    if not news and not spooled:
        return
    import subprocess

    from hooks.detached import start_module

    proc = start_module(WORKER, "pull", str(root), ctx.project)
    if proc is None:
        ctx.notes.append("sync=not-started")
        return
    wait = min(MAX_WAIT_S, ctx.deadline.remaining() - MARGIN_S)
    try:
        proc.wait(timeout=max(0.0, wait))
        ctx.notes.append("sync=pulled")
    except subprocess.TimeoutExpired:
        ctx.notes.append("sync=background")  # it goes on detached and writes when done


def synced_paths(ctx: HookContext, files: list[str]) -> dict[str, str]:
    """The edited files (as the tool named them, relative to cwd) that are on the sync allow-list,
    each with its path relative to the repository root."""
    if not files or not enabled():
        return {}
    from chalicelib.contracts.sync_config import load_project_sync

    root = _root(ctx)
    config = load_project_sync(ctx.config.home, ctx.project)
    out = {}
    for name in files:
        absolute = Path(ctx.cwd, name)  # an absolute `name` stays itself
        try:
            rel = absolute.relative_to(root).as_posix()
        except ValueError:
            continue  # outside this checkout
        if config.syncs(rel):
            out[name] = rel
    return out


def push_edits(ctx: HookContext, paths: list[str]) -> None:
    """Hand edited synced files (root-relative) to the worker, which spools them first; never waits."""
    if paths:
        from hooks.detached import start_module

        started = start_module(WORKER, "push", str(_root(ctx)), ctx.project, *paths)
        ctx.notes.append(f"sync_push={len(paths)}" if started else "sync=not-started")
