"""The Keep new / Keep old / Keep both buttons of an announced contradiction, as callback data."""

from __future__ import annotations

import re

from chalicelib.graph.domain.graph_model import Contradiction

PREFIX = "gc"
CHOICES = {"new": "keep_new", "old": "keep_old", "both": "keep_both"}
_DATA = re.compile(rf"^{PREFIX}:([0-9a-f-]{{36}}):(new|old|both)$")
MAX_RULE_CHARS = 300


def button_data(contradiction_id: str, choice: str) -> str:
    return f"{PREFIX}:{contradiction_id}:{choice}"


def parse_button(data: str) -> tuple[str, str] | None:
    """(contradiction id, resolution) of a button's data, or None when it is not one of ours."""
    m = _DATA.match(data)
    return (m[1], CHOICES[m[2]]) if m else None


def keyboard(contradiction_id: str) -> list[list[tuple[str, str]]]:
    return [
        [
            ("Keep new", button_data(contradiction_id, "new")),
            ("Keep old", button_data(contradiction_id, "old")),
            ("Keep both", button_data(contradiction_id, "both")),
        ]
    ]


def announcement(c: Contradiction) -> str:
    def cut(text: str) -> str:
        return text if len(text) <= MAX_RULE_CHARS else text[: MAX_RULE_CHARS - 1] + "…"

    reason = f"\nWhy: {cut(c.reason)}" if c.reason else ""
    return (
        f"⚠️ Two instructions of {c.project} contradict each other.\n"
        f"New: {cut(c.new.content)}\nOld: {cut(c.old.content)}{reason}\nWhich one holds?"
    )


def resolved_text(resolution: str) -> str:
    return {
        "keep_new": "Kept the new instruction; the old one is superseded.",
        "keep_old": "Kept the old instruction; the new one is superseded.",
        "keep_both": "Kept both instructions.",
    }[resolution]
