"""SessionEnd: complete the session with its transcript; extract insights in the background.

The client kills SessionEnd hooks quickly, so the slow part (insight extraction) is written
to the outbox first and handed to a detached ``hooks.extract_worker``. If the worker never
runs, the next hook's outbox replay delivers it: nothing is lost either way.
"""

from __future__ import annotations

from typing import Any

from hooks.context_render import trim
from hooks.detached import spawn_module
from hooks.edits import relative_path
from hooks.runtime import HookContext, fail_open
from hooks.transcript import conversation_text, read_transcript, recent_turns

BUDGET_S = 0.3
TRANSCRIPT_BYTES = 4_000_000
TRANSCRIPT_CHARS = 400_000  # keeps the complete call's body well under the API's 1 MB limit
CONVERSATION_CHARS = 12000


def handle(ctx: HookContext) -> None:
    """Spool + spawn the extraction, then POST session complete (spooled if late)."""
    if not ctx.session_id:
        return None
    reason = str(ctx.payload.get("reason") or "other")
    path = str(ctx.payload.get("transcript_path") or "")
    transcript = read_transcript(path, TRANSCRIPT_BYTES) if path else None
    turns = transcript.turns if transcript else []
    last_reply = next((t["text"] for t in reversed(turns) if t["role"] == "assistant"), "")
    summary = f"Session ended ({reason})" + (f": {trim(last_reply, 300)}" if last_reply else "")
    files = [relative_path(f, ctx.cwd) for f in transcript.files_changed] if transcript else []
    common: dict[str, Any] = {"session_id": ctx.session_id, "project": ctx.project}
    if transcript and turns:
        extract = {
            **common,
            "conversation_text": conversation_text(turns, CONVERSATION_CHARS),
            "files_changed": files,
            "summary": summary,
            "duration_ms": transcript.duration_ms,
        }
        call = {"method": "POST", "path": "/api/session/extract-insights", "body": extract,
                "key": ctx.session_id + "-extract"}
        spooled = ctx.api.outbox.put(call, "session_end")
        if not spawn_module("hooks.extract_worker", str(spooled)):
            ctx.notes.append("worker=not-started")
    ctx.api.post("/api/session/complete", {
        **common,
        "client": ctx.config.client,
        "reason": reason,
        "duration_ms": transcript.duration_ms if transcript else None,
        "files_changed": files,
        "summary": summary,
        "transcript": recent_turns(turns, TRANSCRIPT_CHARS),
    })
    return None


def main() -> None:
    """The hook's entry point (`hooks/launch.py` calls it; so does `python -m`)."""
    fail_open("session_end", handle, budget_s=BUDGET_S, replay_limit=0)


if __name__ == "__main__":
    main()
