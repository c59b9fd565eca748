"""The review digest in the chat: waiting memories in one message, Keep / Edit / Drop for each.

A button's callback data is `rv:<memory id>:<k|e|d>` (41 bytes, under Telegram's 64). Edit asks
for the new text as a reply to a question naming the memory; the reply keeps it with that text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from chalicelib.memory.domain.memory_model import Memory

PREFIX = "rv"
ACTIONS = {"k": "keep", "e": "edit", "d": "drop"}
_DATA = re.compile(rf"^{PREFIX}:([0-9a-f-]{{36}}):([ked])$")
_ASKED = re.compile(r"^✏️ New text for memory ([0-9a-f-]{36})")
MAX_ITEM_CHARS = 300


def button_data(memory_id: str, action: str) -> str:
    return f"{PREFIX}:{memory_id}:{action}"


def parse_button(data: str) -> tuple[str, str] | None:
    """(memory id, keep | edit | drop) of a button's data, or None when it is not one of ours."""
    m = _DATA.match(data)
    return (m[1], ACTIONS[m[2]]) if m else None


def keyboard(items: Sequence[Memory]) -> list[list[tuple[str, str]]]:
    return [[(f"{n} Keep", button_data(m.id, "k")), (f"{n} Edit", button_data(m.id, "e")),
             (f"{n} Drop", button_data(m.id, "d"))] for n, m in enumerate(items, 1)]


def _cut(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_ITEM_CHARS else flat[: MAX_ITEM_CHARS - 1] + "…"


def kind_of(m: Memory) -> str:
    return "proposed rule" if m.category == "project_rule" else m.category


def digest(items: Sequence[Memory], waiting: int) -> str:
    """The batch's text: each memory numbered with its project, kind, source and why it waits."""
    lines = [f"📥 {waiting} memor{'y' if waiting == 1 else 'ies'} wait for review; {len(items)} here. "
             "Keep trusts it, Drop archives it."]
    for n, m in enumerate(items, 1):
        why = m.metadata.get("quarantine")  # what the text asks the model to do, if anything
        lines.append(f"\n{n}. [{m.project} · {kind_of(m)} · from {m.source}] {_cut(m.content)}"
                     + (f"\n   ⚠️ {why}" if why else ""))
    return "\n".join(lines)


def edit_question(memory_id: str, content: str) -> str:
    return f"✏️ New text for memory {memory_id}? Reply to this message with it.\nNow: {_cut(content)}"


def edit_asked_about(text: str) -> str | None:
    """The memory id an edit question names, or None for any other message."""
    m = _ASKED.match(text)
    return m[1] if m else None


def decided_text(action: str, m: Memory, by: str) -> str:
    verb = {"keep": "Kept", "drop": "Dropped (archived)"}.get(action, "Kept edited")
    return f"{verb} by {by}: [{m.project} · {kind_of(m)}] {_cut(m.content)}"
