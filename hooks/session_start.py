"""SessionStart: brief the model on the project, refresh MEMORY.md's managed sections, and pull
the project's encrypted synced files.

Fires on startup, resume, clear and compact (so memory is re-injected after compaction).
The reads run in parallel under one deadline; whatever arrived is used.
"""

from __future__ import annotations

import os

from hooks import file_sync, injected
from hooks.context_render import rule_lines, session_context_lines, session_start_context, stale_after_days
from hooks.memory_md import (
    CONTEXT_HEADING,
    RULES_HEADING,
    claude_config_dir,
    memory_md_path,
    update_memory_md,
)
from hooks.runtime import HookContext, context_output, fail_open

TYPE_CHECKING = False  # typing itself is not imported at run time (hooks.launch)
if TYPE_CHECKING:
    from typing import Any

SOURCES = frozenset({"startup", "resume", "clear", "compact"})
FRESH_CONTEXT = frozenset({"clear", "compact"})  # the earlier injections are gone from the context
BUDGET_S = 2.5


def handle(ctx: HookContext) -> str | None:
    """Fetch briefing, rules and recent memories; print them and write MEMORY.md."""
    source = str(ctx.payload.get("source") or "startup")
    if source not in SOURCES:
        return None
    project = ctx.project
    posts: list[tuple[str, dict[str, Any]]] = []
    if ctx.session_id:
        event = {
            "session_id": ctx.session_id,
            "project": project,
            "event": "start",
            "client": ctx.config.client,
            "data": {"source": source, "model": ctx.payload.get("model")},
        }
        posts.append(("/api/session/event", event))
    gets: list[tuple[str, dict[str, Any]]] = [
        ("/api/session/briefing", {"project": project}),
        ("/api/rules", {"project": project, "limit": 15}),
        ("/api/memory/recent", {"project": project, "limit": 5}),
    ]
    sync_check = file_sync.changes_request(ctx)
    if sync_check is not None:
        gets.append(sync_check)
    (briefing, learnings, recent, *sync_answer), _ = ctx.api.exchange(gets, posts)
    if sync_check is not None:
        file_sync.pull_if_needed(ctx, sync_answer[0])
    if ctx.config.client == "claude":
        _refresh_memory_md(ctx, briefing, learnings, recent)
    text = session_start_context(project, briefing, learnings, recent, stale_after_days(os.environ))
    if text:  # what the briefing carries is not injected again in this session
        injected.add(ctx, injected.briefing_ids(briefing, learnings, recent),
                     reset=source in FRESH_CONTEXT)
    event_name = str(ctx.payload.get("hook_event_name") or "SessionStart")
    return context_output(event_name, text) if text else None


def _refresh_memory_md(ctx: HookContext, briefing: dict | None, learnings: dict | None,
                       recent: dict | None) -> None:
    bodies: dict[str, list[str]] = {}
    if briefing is not None or recent is not None:
        bodies[CONTEXT_HEADING] = session_context_lines(briefing, recent, stale_after_days(os.environ))
    if learnings is not None:
        bodies[RULES_HEADING] = rule_lines(learnings)
    if bodies:
        path = memory_md_path(ctx.cwd, claude_config_dir())
        if update_memory_md(path, bodies):
            ctx.notes.append("memory_md=updated")


def main() -> None:
    """The hook's entry point (`hooks/launch.py` calls it; so does `python -m`)."""
    fail_open("session_start", handle, budget_s=BUDGET_S, replay_limit=10)


if __name__ == "__main__":
    main()
