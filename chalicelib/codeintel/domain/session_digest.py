"""A completed session's synthesized summary: goal, what changed, decisions, open ends.

`digest` is the deterministic version (no model, or the model failed): the first user turn is
the goal, the files the session changed are what changed, lines that state a decision are the
decisions, and the last assistant message's unfinished business the open ends.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

GOAL_CHARS = 240
ITEM_CHARS = 200
MAX_ITEMS = 5
_DECISION = re.compile(
    r"\b(decided|we chose|going with|agreed|from now on|instead of|switch(ed)? to)\b", re.I
)
_OPEN = re.compile(r"\b(todo|next step|still need|not yet|remaining|follow[- ]up|left to do|later)\b", re.I)


@dataclass(frozen=True)
class Synthesis:
    goal: str
    changed: str
    decisions: tuple[str, ...] = ()
    open_ends: tuple[str, ...] = ()
    files: tuple[str, ...] = field(default=())

    def render(self, session_id: str) -> str:
        lines = [f"Session {session_id[:12]}: {self.goal}", f"Changed: {self.changed}"]
        if self.decisions:
            lines.append("Decisions: " + "; ".join(self.decisions))
        if self.open_ends:
            lines.append("Open ends: " + "; ".join(self.open_ends))
        return "\n".join(lines)


def digest(
    turns: Sequence[dict[str, Any]], files: Sequence[str], summary: str | None, last_progress: str | None
) -> Synthesis:
    user = [_flat(t.get("text")) for t in turns if t.get("role") == "user" and _flat(t.get("text"))]
    goal = _clip(user[0] if user else (summary or last_progress or "no goal recorded"), GOAL_CHARS)
    sentences = [s for t in turns for s in _sentences(_flat(t.get("text")))]
    decisions = _unique(s for s in sentences if _DECISION.search(s))
    tail = _sentences(_flat(last_progress)) + sentences[-6:]
    open_ends = _unique(s for s in tail if _OPEN.search(s))
    changed = (
        ", ".join(files[:8]) + (f" and {len(files) - 8} more" if len(files) > 8 else "")
        if files
        else "no files"
    )
    return Synthesis(goal, changed, decisions, open_ends, tuple(files))


def from_answer(answer: dict[str, Any], files: Sequence[str]) -> Synthesis | None:
    """The model's answer as a Synthesis, or None when it lacks a goal."""
    goal = _clip(_flat(answer.get("goal")), GOAL_CHARS)
    if not goal:
        return None
    changed = _clip(_flat(answer.get("changed")), 400) or (", ".join(files[:8]) or "no files")
    return Synthesis(
        goal,
        changed,
        _unique(_flat(x) for x in answer.get("decisions") or []),
        _unique(_flat(x) for x in answer.get("open_ends") or []),
        tuple(files),
    )


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "goal": {"type": "string"},
        "changed": {"type": "string"},
        "decisions": {"type": "array", "items": {"type": "string"}},
        "open_ends": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["goal", "changed", "decisions", "open_ends"],
    "additionalProperties": False,
}


def _flat(text: Any) -> str:
    return " ".join(str(text or "").split())


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(s.strip()) > 8]


def _unique(items: Any) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for item in items:
        clipped = _clip(item, ITEM_CHARS)
        if clipped and clipped.lower() not in {k.lower() for k in seen}:
            seen[clipped] = None
    return tuple(seen)[:MAX_ITEMS]
