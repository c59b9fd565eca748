"""PreCompact: mark the compaction and keep a copy of what is about to be compacted."""

from __future__ import annotations

from hooks.runtime import HookContext, fail_open
from hooks.transcript import read_transcript, recent_turns

BUDGET_S = 2.0
TAIL_CHARS = 8000
TAIL_BYTES = 2_000_000  # only the end of the transcript is read: the tail is what matters


def handle(ctx: HookContext) -> None:
    """POST a pre_compact session event with the trigger and the transcript's recent turns."""
    if not ctx.session_id:
        return None
    transcript_path = str(ctx.payload.get("transcript_path") or "")
    turns = read_transcript(transcript_path, TAIL_BYTES).turns if transcript_path else []
    data = {
        "trigger": ctx.payload.get("trigger") or "auto",
        "custom_instructions": ctx.payload.get("custom_instructions"),
        "turns": recent_turns(turns, TAIL_CHARS),
    }
    ctx.api.post("/api/session/event", {
        "session_id": ctx.session_id, "project": ctx.project, "event": "pre_compact",
        "client": ctx.config.client, "data": data,
    })
    return None


if __name__ == "__main__":
    fail_open("pre_compact", handle, budget_s=BUDGET_S, replay_limit=5)
