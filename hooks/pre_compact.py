"""PreCompact: mark the compaction and keep a copy of what is about to be compacted.

In a subagent run (the agent sets ITACHI_AGENT_RUN_ID in the engine's environment) it also
flushes the subagent's working notes, its last assistant turns, to its run: they become a
`notes` lesson of its profile before the context that held them is compacted.
"""

from __future__ import annotations

import os
import re

from hooks.runtime import HookContext, fail_open
from hooks.transcript import read_transcript, recent_turns

BUDGET_S = 2.0
TAIL_CHARS = 8000
TAIL_BYTES = 2_000_000  # only the end of the transcript is read: the tail is what matters
NOTES_CHARS = 3500
RUN_ID = re.compile(r"^[0-9a-f-]{36}$")


def handle(ctx: HookContext) -> None:
    """POST a pre_compact session event with the trigger and the transcript's recent turns."""
    if not ctx.session_id:
        return None
    transcript_path = str(ctx.payload.get("transcript_path") or "")
    turns = read_transcript(transcript_path, TAIL_BYTES).turns if transcript_path else []
    tail = recent_turns(turns, TAIL_CHARS)
    data = {
        "trigger": ctx.payload.get("trigger") or "auto",
        "custom_instructions": ctx.payload.get("custom_instructions"),
        "turns": tail,
    }
    calls = [("/api/session/event", {
        "session_id": ctx.session_id, "project": ctx.project, "event": "pre_compact",
        "client": ctx.config.client, "data": data,
    })]
    run_id = os.environ.get("ITACHI_AGENT_RUN_ID", "")
    notes = " ".join(str(t["text"]) for t in tail if t.get("role") == "assistant")[-NOTES_CHARS:]
    if RUN_ID.match(run_id) and notes.strip():
        calls.append((f"/api/agents/runs/{run_id}/notes", {"notes": notes}))
    ctx.api.post_many(calls)
    return None


def main() -> None:
    """The hook's entry point (`hooks/launch.py` calls it; so does `python -m`)."""
    fail_open("pre_compact", handle, budget_s=BUDGET_S, replay_limit=5)


if __name__ == "__main__":
    main()
