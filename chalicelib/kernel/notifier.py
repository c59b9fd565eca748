"""The port through which a capability tells a person something: approvals, brain proposals,
health alerts. Telegram's gateway implements it; the capabilities that notify never see its types."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

# Rows of (label, callback data) buttons under a message.
Buttons = Sequence[Sequence[tuple[str, str]]]


class Notifier(Protocol):
    def send(self, chat_id: int, text: str, *, topic_id: int = 0, keyboard: Buttons | None = None) -> int:
        """Post a message (in a topic when `topic_id`), with buttons; returns the message's id."""
        ...

    def edit(self, chat_id: int, message_id: int, text: str) -> None:
        """Replace a posted message's text (its buttons go)."""
        ...
