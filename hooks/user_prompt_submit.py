"""UserPromptSubmit: put the memories most relevant to the prompt in front of the model.

This blocks the user's turn, so it has the tightest deadline of all hooks: when the API is
slow or down the prompt goes through without memory rather than waiting.
"""

from __future__ import annotations

from chalicelib.contracts.prompt_context import (
    GLOBAL_LIMIT,
    MAX_QUERY_CHARS,
    MIN_PROMPT_CHARS,
    NAMESPACE_LIMIT,
    PROJECT_LIMIT,
)
from hooks import injected
from hooks.context_render import search_context
from hooks.runtime import HookContext, context_output, fail_open

BUDGET_S = 0.5
# Asked for beyond the limits once the session was shown memories, so the ones it already has
# (the SessionStart briefing's, earlier prompts', recall's) can be skipped without losing slots.
SKIP_ALLOWANCE = 3


def handle(ctx: HookContext) -> str | None:
    """Search the project, its namespaces and _global in one request (with the graph memory's context, and
    the prompt queued for it to learn from); print the matches this session was not shown yet."""
    prompt = str(ctx.payload.get("prompt") or "").strip()
    if len(prompt) < MIN_PROMPT_CHARS:
        return None
    query = prompt[:MAX_QUERY_CHARS]
    already = injected.shown(ctx)
    extra = SKIP_ALLOWANCE if already else 0
    # The project's own 3 slots, its namespaces' 2 and _global's 2: one request, one query embedding.
    (answer,) = ctx.api.get_many(
        [
            ("/api/memory/search", {"query": query, "project": ctx.project,
                                    "project_limit": PROJECT_LIMIT + extra,
                                    "global_limit": GLOBAL_LIMIT + extra,
                                    "namespace_limit": NAMESPACE_LIMIT + extra,
                                    "mode": "hybrid", "graph": "true"}),
        ]
    )
    answer = injected.unseen(answer, already, ctx.project, (PROJECT_LIMIT, GLOBAL_LIMIT, NAMESPACE_LIMIT))
    text = search_context(answer, ctx.project)
    if not text:
        return None
    injected.add(ctx, [r.get("id") for r in (answer or {}).get("results") or [] if isinstance(r, dict)])
    event_name = str(ctx.payload.get("hook_event_name") or "UserPromptSubmit")
    return context_output(event_name, text)


def main() -> None:
    """The hook's entry point (`hooks/launch.py` calls it; so does `python -m`)."""
    fail_open("user_prompt_submit", handle, budget_s=BUDGET_S, replay_limit=2)


if __name__ == "__main__":
    main()
