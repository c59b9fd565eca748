"""A contradiction the graph memory found, or a rule the instruction store flagged, announced in
the chat with its three buttons."""

from __future__ import annotations

from typing import Any

from chalicelib.graph.domain.contradiction_buttons import RULE_PREFIX, announcement, clash_text, keyboard
from chalicelib.graph.domain.graph_model import Contradiction


def announce_contradiction(gateway: Any, chat_id: int, contradiction: object) -> None:
    """Send the announcement (the caller logs a failure; the contradiction stays listed)."""
    if not isinstance(contradiction, Contradiction):
        return
    gateway.send(chat_id, announcement(contradiction), keyboard=keyboard(contradiction.id))


def announce_rule_clash(gateway: Any, chat_id: int, clash: Any) -> None:
    """Send a flagged rule's announcement (a `RuleClash`: id, project, new, old, reason)."""
    gateway.send(chat_id, clash_text(clash.project, clash.new, clash.old, clash.reason),
                 keyboard=keyboard(clash.id, RULE_PREFIX))
