"""Stop: keep the last assistant message as session progress. Never blocks the session."""

from __future__ import annotations

from hooks.runtime import HookContext, fail_open

BUDGET_S = 2.0
MAX_MESSAGE_CHARS = 4000


def handle(ctx: HookContext) -> None:
    """POST a stop session event; do nothing when Claude is already continuing from a Stop."""
    if ctx.payload.get("stop_hook_active") or not ctx.session_id:
        return None
    # Claude Code and Codex send last_assistant_message; Gemini's AfterAgent prompt_response.
    message = ctx.payload.get("last_assistant_message") or ctx.payload.get("prompt_response")
    ctx.api.post("/api/session/event", {
        "session_id": ctx.session_id, "project": ctx.project, "event": "stop",
        "client": ctx.config.client,
        "data": {"last_assistant_message": str(message or "")[:MAX_MESSAGE_CHARS]},
    })
    return None


def main() -> None:
    """The hook's entry point (`hooks/launch.py` calls it; so does `python -m`)."""
    fail_open("stop", handle, budget_s=BUDGET_S, replay_limit=5)


if __name__ == "__main__":
    main()
