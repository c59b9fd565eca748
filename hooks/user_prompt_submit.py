"""UserPromptSubmit: put the memories most relevant to the prompt in front of the model.

This blocks the user's turn, so it has the tightest deadline of all hooks: when the API is
slow or down the prompt goes through without memory rather than waiting. It also runs on
SubagentStart: what a subagent's start or prompt gets is decided by `hooks/subagent_injection.py`
(by default the project's rules, never search results).
"""

from __future__ import annotations

import os

from chalicelib.contracts.prompt_context import (
    GLOBAL_LIMIT,
    MAX_QUERY_CHARS,
    MIN_PROMPT_CHARS,
    NAMESPACE_LIMIT,
    PROJECT_LIMIT,
    RECALLED,
    stale_after_days,
)
from hooks import injected, subagent_injection
from hooks.context_render import rule_lines, search_context
from hooks.runtime import HookContext, context_output, fail_open

TYPE_CHECKING = False  # typing itself is not imported at run time (hooks.launch)
if TYPE_CHECKING:
    from typing import Any

BUDGET_S = 0.5
# Asked for beyond the limits once the session was shown memories, so the ones it already has
# (the SessionStart briefing's, earlier prompts', recall's) can be skipped without losing slots.
SKIP_ALLOWANCE = 3
RULES_LIMIT = 15


def handle(ctx: HookContext) -> str | None:
    """Search the project, its namespaces and _global in one request (with the graph memory's context,
    and the prompt queued for it to learn from); print the matches this session was not shown yet.
    A subagent's start or prompt gets what `ITACHI_SUBAGENT_INJECTION` allows instead."""
    event_name = str(ctx.payload.get("hook_event_name") or "UserPromptSubmit")
    prompt = str(ctx.payload.get("prompt") or "").strip()
    if subagent_injection.is_subagent(ctx.payload):
        text = _for_subagent(ctx, prompt, event_name == subagent_injection.SUBAGENT_START)
    else:
        text = _searched(ctx, prompt, injected.shown(ctx))
    return context_output(event_name, text) if text else None


def _searched(ctx: HookContext, prompt: str, already: set[str], *, record: bool = True) -> str:
    if len(prompt) < MIN_PROMPT_CHARS:
        return ""
    query = prompt[:MAX_QUERY_CHARS]
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
    text = search_context(answer, ctx.project, stale_after=stale_after_days(os.environ))
    if text and record:
        injected.add(ctx, [r.get("id") for r in (answer or {}).get("results") or [] if isinstance(r, dict)])
    return text


def _for_subagent(ctx: HookContext, prompt: str, start: bool) -> str:
    """A subagent's start (a fresh context: nothing shown yet, nothing recorded for the session)
    or a subagent's prompt in the session (only what it was not shown)."""
    chosen = subagent_injection.mode()
    ctx.notes.append(f"subagent={chosen}")
    if chosen == "off":
        return ""
    if chosen == "full" and not start:
        return _searched(ctx, prompt, injected.shown(ctx))
    already = set() if start else injected.shown(ctx)
    (learnings,) = ctx.api.get_many([("/api/project/learnings",
                                      {"project": ctx.project, "limit": RULES_LIMIT})])
    rules = _unseen_rules(learnings, already)
    parts = [f"=== Itachi Project Rules ({ctx.project}) ===\n{RECALLED}\n" + "\n".join(rule_lines(rules))] \
        if rules["rules"] else []
    if not start:
        injected.add(ctx, [r.get("id") for r in rules["rules"]])
    if chosen == "full":
        delegated = subagent_injection.delegation_prompt(str(ctx.payload.get("transcript_path") or ""))
        parts.append(_searched(ctx, delegated, set(), record=False))
    return "\n\n".join(p for p in parts if p)


def _unseen_rules(learnings: Any, already: set[str]) -> dict[str, list[dict[str, Any]]]:
    items = learnings.get("rules") if isinstance(learnings, dict) else None
    return {"rules": [r for r in items or [] if isinstance(r, dict) and r.get("rule")
                      and str(r.get("id")) not in already]}


def main() -> None:
    """The hook's entry point (`hooks/launch.py` calls it; so does `python -m`)."""
    fail_open("user_prompt_submit", handle, budget_s=BUDGET_S, replay_limit=2)


if __name__ == "__main__":
    main()
