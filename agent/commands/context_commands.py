"""`itachi context --prompt "..."`: exactly what the hooks would inject for a prompt.

Runs the UserPromptSubmit hook's own handler (the same request, the same rendering) against
the configured API, for this directory's project, and prints the text the model would get,
with its size in characters and an estimate of its tokens (4 characters per token; the
model's own tokenizer is not available offline). (The SessionStart briefing is what
MEMORY.md holds: it is written once per session and is not repeated per prompt.)
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from chalicelib.contracts.prompt_context import tokens

PREVIEW_BUDGET_S = 10.0  # the hook's own deadline is for the user's turn; a preview may wait


def add_context_parser(sub: Any) -> None:
    p = sub.add_parser("context", help="show what the hooks would inject for a prompt")
    p.add_argument("--prompt", required=True, help="the prompt to preview")
    p.add_argument("--project", help="project (default: this directory's project)")
    p.add_argument("--json", action="store_true", help="print parts and counts as JSON")
    p.set_defaults(func=cmd_context)


def hook_text(module: Any, payload: dict[str, Any], project: str | None) -> str:
    """Run a hook's handler on `payload`; return the additionalContext it would print."""
    from hooks.runtime import Deadline, HookContext, load_config

    ctx = HookContext(module.__name__, load_config([]), Deadline(PREVIEW_BUDGET_S), payload, [])
    if project:
        ctx.__dict__["project"] = project  # the cached property, set ahead
    output = module.handle(ctx)
    if not output:
        return ""
    return str(json.loads(output)["hookSpecificOutput"]["additionalContext"])


def cmd_context(args: argparse.Namespace) -> int:
    from hooks import user_prompt_submit

    prompt = {"hook_event_name": "UserPromptSubmit", "prompt": args.prompt, "cwd": os.getcwd()}
    text = hook_text(user_prompt_submit, prompt, args.project)
    if args.json:
        print(json.dumps({"hook": "UserPromptSubmit", "text": text, "chars": len(text),
                          "tokens": tokens(text)}, indent=2))
        return 0
    print(f"--- UserPromptSubmit would inject {len(text)} chars, ~{tokens(text)} tokens ---")
    print(text or "(nothing: no memory matches, or the prompt is too short to search)")
    return 0
