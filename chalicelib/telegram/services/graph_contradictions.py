"""A contradiction the graph memory found, announced in the chat with its three buttons."""

from __future__ import annotations

from typing import Any

from chalicelib.graph.domain.contradiction_buttons import announcement, keyboard
from chalicelib.graph.domain.graph_model import Contradiction


def announce_contradiction(gateway: Any, chat_id: int, contradiction: object) -> None:
    """Send the announcement (the caller logs a failure; the contradiction stays listed)."""
    if not isinstance(contradiction, Contradiction):
        return
    gateway.send(chat_id, announcement(contradiction), keyboard=keyboard(contradiction.id))
