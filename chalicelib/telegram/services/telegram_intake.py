"""Accept Telegram updates (webhook or long polling) and run them, each exactly once.

The intake records an update's `update_id` and enqueues it in one transaction: a redelivered
update is acknowledged without a second message, and an update that could not be queued is
not recorded (Telegram retries it). The consumer records the id again before running the
handlers, so SQS's at-least-once delivery never runs a command twice; a handler that fails
is answered by the bot's error handler and not retried.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from chalicelib.kernel.logging import get_logger
from chalicelib.telegram.services.ports import UnitOfWorkFactory, UpdateQueue

INTAKE = "telegram-intake"
CONSUMER = "telegram-consumer"
REFUSAL = "telegram-refusal"


class TelegramIntake:
    def __init__(self, uow: UnitOfWorkFactory, queue: UpdateQueue) -> None:
        self._uow = uow
        self._queue = queue

    def accept(self, update: Mapping[str, Any]) -> bool:
        """Queue a new update; False if this update_id was already accepted."""
        update_id = int(update["update_id"])
        with self._uow() as uow:
            if not uow.processed.claim(INTAKE, str(update_id)):
                get_logger().info("duplicate telegram update", extra={"update_id": update_id})
                return False
            # Sent before the commit, not after it: if the send fails the claim rolls back with
            # it, so Telegram's retry is accepted. A send whose commit then fails only queues a
            # copy, which the consumer's own claim ignores.
            self._queue.send(update)
            uow.commit()
        return True


class UpdateRunner:
    """Run the bot's handlers for a queued update once per update_id.

    `prepare` (starting the bot: getMe) runs before the update is recorded, so a Bot API that
    cannot be reached fails the message for a later retry instead of consuming the update.
    """

    def __init__(self, uow: UnitOfWorkFactory, process: Callable[[Mapping[str, Any]], None],
                 prepare: Callable[[], object] = lambda: None) -> None:
        self._uow = uow
        self._process = process
        self._prepare = prepare

    def run(self, update: Mapping[str, Any]) -> bool:
        update_id = int(update["update_id"])
        self._prepare()
        with self._uow() as uow:
            first = uow.processed.claim(CONSUMER, str(update_id))
            uow.commit()
        if not first:
            return False
        get_logger().thread_safe_append_keys(update_id=update_id)
        try:
            self._process(update)
        finally:
            get_logger().thread_safe_remove_keys(["update_id"])
        return True


class AccessGuard:
    """The allow-list of Telegram users, and the one polite refusal a stranger gets."""

    def __init__(self, uow: UnitOfWorkFactory, allowed_users: Collection[int]) -> None:
        self._uow = uow
        self._allowed = frozenset(allowed_users)

    def allows(self, user_id: int) -> bool:
        return user_id in self._allowed

    def first_refusal(self, user_id: int) -> bool:
        """True the first time a stranger is refused (within the idempotency retention window)."""
        with self._uow() as uow:
            first = uow.processed.claim(REFUSAL, str(user_id))
            uow.commit()
        return first
