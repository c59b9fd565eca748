"""The Keep new / Keep old / Keep both buttons of an announced contradiction, as callback data:
`gc:<id>:<choice>` for a graph contradiction, `rc:<id>:<choice>` for a flagged rule of the
instruction store (at most 44 bytes either way; Telegram allows 64)."""

from __future__ import annotations

import re

from chalicelib.graph.domain.graph_model import Contradiction

PREFIX = "gc"
RULE_PREFIX = "rc"  # a flagged rule's clash, settled by the instruction store
CHOICES = {"new": "keep_new", "old": "keep_old", "both": "keep_both"}
_DATA = re.compile(r"^(gc|rc):([0-9a-f-]{36}):(new|old|both)$")
MAX_RULE_CHARS = 300


def button_data(contradiction_id: str, choice: str, prefix: str = PREFIX) -> str:
    return f"{prefix}:{contradiction_id}:{choice}"


def parse_button(data: str, prefix: str = PREFIX) -> tuple[str, str] | None:
    """(contradiction id, resolution) of a button's data, or None when it is not one of `prefix`'s."""
    m = _DATA.match(data)
    return (m[2], CHOICES[m[3]]) if m and m[1] == prefix else None


def keyboard(contradiction_id: str, prefix: str = PREFIX) -> list[list[tuple[str, str]]]:
    return [
        [
            ("Keep new", button_data(contradiction_id, "new", prefix)),
            ("Keep old", button_data(contradiction_id, "old", prefix)),
            ("Keep both", button_data(contradiction_id, "both", prefix)),
        ]
    ]


def announcement(c: Contradiction) -> str:
    return clash_text(c.project, c.new.content, c.old.content, c.reason)


def clash_text(project: str, new: str, old: str, reason: str) -> str:
    """The announcement of two instructions that contradict each other."""
    def cut(text: str) -> str:
        return text if len(text) <= MAX_RULE_CHARS else text[: MAX_RULE_CHARS - 1] + "…"

    why = f"\nWhy: {cut(reason)}" if reason else ""
    return (
        f"⚠️ Two instructions of {project} contradict each other.\n"
        f"New: {cut(new)}\nOld: {cut(old)}{why}\nWhich one holds?"
    )


def resolved_text(resolution: str) -> str:
    return {
        "keep_new": "Kept the new instruction; the old one is superseded.",
        "keep_old": "Kept the old instruction; the new one is superseded.",
        "keep_both": "Kept both instructions.",
    }[resolution]
