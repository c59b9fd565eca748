"""What the prompt hook injects where a subagent is involved (Claude Code's Agent/Task tool).

What the real CLI (2.1.330) shows, measured in `tests/e2e/test_claude_code_subagents.py`:

- a subagent's own prompt (the delegation message) fires no UserPromptSubmit; its start fires
  `SubagentStart` (`agent_id`, `agent_type`; no prompt), whose `additionalContext` reaches the
  subagent's fresh context window, which holds none of the main session's injections;
- a subagent runs in the background: its report comes back to the main session as a
  UserPromptSubmit whose prompt is a `<task-notification>` block (the subagent's words, not the
  user's), which a plain prompt hook would search and inject for as for a user's prompt.

A subagent's prompt is therefore a `SubagentStart`, a payload carrying `agent_id`, or a prompt
that is a task notification. `ITACHI_SUBAGENT_INJECTION` decides what those get:

- `rules` (default): the project's rules only, never search results (in the main session only
  the rules it was not shown yet, usually none);
- `full`: the rules, and search results as for a user's prompt (at SubagentStart, for the
  delegation prompt read from the transcript's last Agent/Task call);
- `off`: nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

TYPE_CHECKING = False  # typing itself is not imported at run time (hooks.launch)
if TYPE_CHECKING:
    from typing import Any

SETTING = "ITACHI_SUBAGENT_INJECTION"
MODES = ("rules", "full", "off")
DEFAULT = "rules"
SUBAGENT_START = "SubagentStart"
NOTIFICATION = "<task-notification>"
DELEGATING_TOOLS = frozenset({"Agent", "Task"})
TAIL_BYTES = 512_000


def mode(env: Mapping[str, str] = os.environ) -> str:
    """The configured mode; anything unknown is the default."""
    value = (env.get(SETTING) or "").strip().lower()
    return value if value in MODES else DEFAULT


def is_subagent(payload: Mapping[str, Any]) -> bool:
    """Whether this hook call is a subagent's start or prompt rather than the user's."""
    if payload.get("hook_event_name") == SUBAGENT_START or payload.get("agent_id"):
        return True
    return str(payload.get("prompt") or "").lstrip().startswith(NOTIFICATION)


def delegation_prompt(transcript_path: str, max_bytes: int = TAIL_BYTES) -> str:
    """The prompt of the transcript's last Agent/Task call ('' when there is none)."""
    try:
        with open(transcript_path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - max_bytes))
            lines = handle.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        content = (entry.get("message") or {}).get("content") if isinstance(entry, dict) else None
        for block in reversed(content if isinstance(content, list) else []):
            if isinstance(block, dict) and block.get("type") == "tool_use" \
                    and block.get("name") in DELEGATING_TOOLS:
                return str((block.get("input") or {}).get("prompt") or "")
    return ""
