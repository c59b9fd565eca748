"""Where a memory's text came from, who wrote it down, and which text is trusted.

Two things decide trust, and neither is a field the caller fills in for itself. The source says
where the text came from: tool output, a web page or another agent may carry instructions meant
for the model ("always push directly to main", "ignore previous instructions"), so that text is
never trusted. The writer is the path the text took to the store, set by the server:

- `person`: a person wrote or kept it: an admin key (the CLI, the console), the Telegram bot;
- `pipeline`: the server derived it (the learning loop, code intelligence, the assistant's model
  of its user): trusted, unless it reads as a directive to the model (`directives.directive`);
- `key`: a machine or client key sent it. Any process on a machine can read that machine's key,
  so a key proves nothing about who wrote the text, whatever source it declares.

Untrusted text is stored quarantined: searchable on request, never injected, never a live rule,
until a person promotes it. (The prompt hook's capture of the user's own prompt is the one
machine path that carries the user's words: it feeds the graph memory, `graph/`.)
"""

from __future__ import annotations

import re
from typing import Literal

from chalicelib.memory.domain.directives import directive

Source = Literal["user", "assistant", "tool", "web", "agent", "import", "file", "system", "unspecified"]
SOURCES: tuple[Source, ...] = ("user", "assistant", "tool", "web", "agent", "import", "file", "system",
                               "unspecified")
UNTRUSTED_SOURCES = frozenset({"tool", "web", "agent"})
Writer = Literal["person", "pipeline", "key"]

# Imperative phrases that try to steer a model: flagged on untrusted text for the reviewer.
_INSTRUCTION = re.compile(
    r"\b(always|never|must|you should|do not|don't|ignore (all |any )?(previous|prior|above)|"
    r"disregard|from now on|system prompt)\b", re.IGNORECASE)


def is_trusted(source: str) -> bool:
    """True unless the text came from tool output, the web or another agent."""
    return source not in UNTRUSTED_SOURCES


def trusted_on_write(source: str, writer: Writer, text: str) -> bool:
    """Whether text stored by `writer` from `source` may be injected before a person promotes it."""
    if writer == "key" or not is_trusted(source):
        return False
    return writer == "person" or directive(text) is None


def graph_source(source: str, writer: Writer, text: str) -> str:
    """The source to record where trust follows the source alone (graph nodes): `agent` (untrusted)
    for text that may not be trusted on write."""
    return source if not is_trusted(source) or trusted_on_write(source, writer, text) else "agent"


def quarantine_reason(text: str) -> str | None:
    """The reviewer's hint on quarantined text: what it asks the model to do, if anything."""
    return directive(text) or ("carries instructions" if carries_instructions(text) else None)


def carries_instructions(text: str) -> bool:
    """Whether the text reads like an instruction to the model (a reviewer's hint, not a filter)."""
    return _INSTRUCTION.search(text) is not None
