"""PostToolUse: record each file edit as a code-change memory and a session edit, push edited
files that sync (end-to-end encrypted; their contents are never recorded), and recall what
memory holds about a file just read or a command that just failed (`hooks.recall`).

A tool call that reports a failure is recorded as a ``tool_failure`` session event (it feeds
the session's difficulty) and as a failed edit, never as a code change.
"""

from __future__ import annotations

from typing import Any

from hooks import file_sync, recall
from hooks.edits import edits_from_payload, failure_of
from hooks.runtime import HookContext, fail_open

BUDGET_S = 2.0
MAX_FILES = 20


def handle(ctx: HookContext) -> str | None:
    """POST code-change + session edit per edited file, or a tool_failure event; print recall."""
    tool = str(ctx.payload.get("tool_name") or "")
    error = failure_of(ctx.payload)
    reads = tool in recall.READ_TOOLS or tool in recall.SHELL_TOOLS
    edits = [] if reads else edits_from_payload(ctx.payload)[:MAX_FILES]
    project, client = ctx.project, ctx.config.client
    synced = file_sync.synced_paths(ctx, [e.file for e in edits]) if error is None else {}
    posts: list[tuple[str, dict[str, Any]]] = []
    for edit in edits:
        if edit.file in synced or _is_secret_file(edit.file):  # end-to-end encrypted: no diff
            edit = edit._replace(summary=f"Edited {edit.file} (synced, contents not recorded)", diff="")
        measures = {"lines_added": edit.lines_added, "lines_removed": edit.lines_removed,
                    "language": edit.language}
        if error is None:
            metadata = {"session_id": ctx.session_id, "tool": tool, "client": client, **measures}
            posts.append(("/api/memory/code-change", {
                "project": project, "file": edit.file, "summary": edit.summary,
                "category": "code_change", "diff": edit.diff, "metadata": metadata,
                "session_id": ctx.session_id or None,
            }))
        if ctx.session_id:
            posts.append(("/api/session/edit", {
                "session_id": ctx.session_id, "project": project, "file": edit.file,
                "tool": tool, **measures, "diff": edit.diff, "failed": error is not None,
            }))
    if error is not None and ctx.session_id:
        posts.append(("/api/session/event", {
            "session_id": ctx.session_id, "project": project, "event": "tool_failure",
            "client": client,
            "data": {"tool": tool, "error": error, "files": [e.file for e in edits]},
        }))
    context = recall.recall_output(ctx)  # first: the model waits for it, the records can be late
    if posts:
        ctx.api.post_many(posts)
    if synced:
        file_sync.push_edits(ctx, sorted(set(synced.values())))
    return context


def _is_secret_file(path: str) -> bool:
    return path.replace("\\", "/").rsplit("/", 1)[-1].startswith(".env")


def main() -> None:
    """The hook's entry point (`hooks/launch.py` calls it; so does `python -m`)."""
    fail_open("post_tool_use", handle, budget_s=BUDGET_S, replay_limit=5)


if __name__ == "__main__":
    main()
