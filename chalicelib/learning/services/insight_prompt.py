"""The extraction prompt and the JSON Schema of its answer (strict structured output)."""

from __future__ import annotations

from typing import Any

from chalicelib.learning.domain.insights import CATEGORIES

MAX_PROMPT_CHARS = 16_000

SYSTEM = """You review one coding session between a user and an AI coding agent and extract what
is worth remembering for future sessions on the same project.

Score the session's significance from 0 to 1:
- 0.0-0.2: trivial changes, greetings, questions without outcome
- 0.3-0.5: bug fixes, minor features
- 0.6-0.8: technical decisions, architectural choices
- 0.9-1.0: critical decisions, project pivots

Insights: at most 8, each one self-contained sentence a teammate could act on, categorised as
decision, pattern, bugfix, architecture, preference (how the user likes things done) or
learning (what went wrong and how it was resolved). Cite the numbered lines they come from.

Rules: at most 5 prescriptive, project-specific rules the user established or confirmed
(e.g. "Always use yarn, not npm"), imperative, under 200 characters, with your confidence 0-1.
Only rules that should hold in every future session; none if there are none.

Never copy secrets, tokens or passwords. Answer with the JSON object only."""

_LINES = {"type": "array", "items": {"type": "integer"}}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "significance": {"type": "number"},
        "insights": {"type": "array", "items": {
            "type": "object",
            "properties": {"category": {"type": "string", "enum": list(CATEGORIES)},
                           "content": {"type": "string"}, "lines": _LINES},
            "required": ["category", "content", "lines"], "additionalProperties": False}},
        "rules": {"type": "array", "items": {
            "type": "object",
            "properties": {"rule": {"type": "string"}, "confidence": {"type": "number"},
                           "lines": _LINES},
            "required": ["rule", "confidence", "lines"], "additionalProperties": False}},
    },
    "required": ["significance", "insights", "rules"],
    "additionalProperties": False,
}


def user_prompt(project: str, conversation_text: str, files_changed: tuple[str, ...],
                summary: str | None) -> str:
    """The session with numbered lines (the numbers are the insights' provenance)."""
    numbered = "\n".join(f"{n}| {line}" for n, line in enumerate(conversation_text.splitlines(), 1))
    if len(numbered) > MAX_PROMPT_CHARS:  # keep the end: decisions are usually stated late
        numbered = "[...]\n" + numbered[-MAX_PROMPT_CHARS:]
    files = ", ".join(files_changed[:30]) or "none"
    return (f"Project: {project}\nFiles changed: {files}\n"
            f"Summary: {summary or 'none'}\n\nConversation:\n{numbered}")
