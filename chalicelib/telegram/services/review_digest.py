"""The review queue's digest: waiting memories sent to the chat in batches with their buttons.

Run by the `review-digest` schedule: each memory is announced once, at most `batches` messages of
`batch` memories a run (the rest waits for the next run, or for the console's queue page).
"""

from __future__ import annotations

from typing import Any

from chalicelib.memory.domain.memory_model import Memory
from chalicelib.memory.domain.review_digest import digest, keyboard
from chalicelib.memory.services.memory_review import MemoryReview

BATCH = 10
MAX_BATCHES = 5


def send_review_digest(review: MemoryReview, gateway: Any, chat_id: int, *, batch: int = BATCH,
                       batches: int = MAX_BATCHES) -> int:
    """Announce memories not yet announced; return how many went out."""
    waiting = review.count()
    sent = 0

    def send(items: list[Memory]) -> None:
        gateway.send(chat_id, digest(items, waiting - sent), keyboard=keyboard(items))

    for _ in range(batches):
        announced = review.announce(send, batch)
        sent += announced
        if announced < batch:
            break
    return sent
