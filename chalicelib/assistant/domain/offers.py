"""A task offer: what the bot would create, waiting for the Create or Cancel tap."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Offer:
    chat_id: int
    topic_id: int
    user_id: int | None
    project: str
    machine: str | None
    prompt: str
    id: str = ""
    status: str = "offered"  # offered | created | cancelled
    task_id: str | None = None
