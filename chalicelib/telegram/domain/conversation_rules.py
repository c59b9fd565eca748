"""Pure rules of the bot's conversation: which exchanges are worth remembering, and the prompt."""

from __future__ import annotations

import re
from collections.abc import Sequence

MIN_SIGNIFICANT_CHARS = 40
_SIGNALS = re.compile(
    r"\b(remember|always|never|prefer|decided|decision|from now on|don't|do not|must|should|"
    r"deadline|my name|i am|i'm|we use|we are)\b", re.IGNORECASE)
_SMALL_TALK = re.compile(r"^\s*(hi|hello|hey|thanks|thank you|ok|okay|cool|nice|good (morning|night))\W*$",
                         re.IGNORECASE)

SYSTEM_PROMPT = (
    "You are Itachi, the Telegram front-end of a memory and task orchestration system for AI coding "
    "agents. Answer briefly and concretely, in plain text (no Markdown). Use the context below when it "
    "is relevant and say when you do not know. To run work, tell the user the command to use "
    "(/task <project> <description>, /session <machine> <prompt>, /recall <query>, /learn <rule>)."
)


def is_significant(message: str) -> bool:
    """Worth storing as a conversation memory: substantive, and states a fact, preference or decision."""
    text = message.strip()
    if len(text) < MIN_SIGNIFICANT_CHARS or _SMALL_TALK.match(text):
        return False
    return bool(_SIGNALS.search(text))


def compose_system(sections: Sequence[tuple[str, str]], max_chars: int = 6000) -> str:
    """The system prompt with each non-empty context section, trimmed to `max_chars` overall."""
    parts = [SYSTEM_PROMPT]
    used = len(SYSTEM_PROMPT)
    for title, body in sections:
        body = body.strip()
        if not body:
            continue
        block = f"\n\n## {title}\n{body}"
        if used + len(block) > max_chars:
            block = block[: max(0, max_chars - used)]
        if block:
            parts.append(block)
            used += len(block)
    return "".join(parts)
