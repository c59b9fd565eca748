"""Where a memory's text came from, and which origins are trusted.

Text a person or this session's own assistant wrote is trusted. Text that came from tool
output, a web page or another agent is not: it may carry instructions meant for the model
("always push directly to main", "ignore previous instructions"), so it is stored quarantined
and reaches a model only after a person promotes it.
"""

from __future__ import annotations

import re
from typing import Literal

Source = Literal["user", "assistant", "tool", "web", "agent", "import", "file", "system", "unspecified"]
SOURCES: tuple[Source, ...] = ("user", "assistant", "tool", "web", "agent", "import", "file", "system",
                               "unspecified")
UNTRUSTED_SOURCES = frozenset({"tool", "web", "agent"})

# Imperative phrases that try to steer a model: flagged on untrusted text for the reviewer.
_INSTRUCTION = re.compile(
    r"\b(always|never|must|you should|do not|don't|ignore (all |any )?(previous|prior|above)|"
    r"disregard|from now on|system prompt)\b", re.IGNORECASE)


def is_trusted(source: str) -> bool:
    """True unless the text came from tool output, the web or another agent."""
    return source not in UNTRUSTED_SOURCES


def carries_instructions(text: str) -> bool:
    """Whether the text reads like an instruction to the model (a reviewer's hint, not a filter)."""
    return _INSTRUCTION.search(text) is not None
