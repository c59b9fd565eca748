"""Accept Telegram updates (webhook or long polling) and run them, each exactly once.

The intake records an update's `update_id` and enqueues it in one transaction: a redelivered
update is acknowledged without a second message, and an update that could not be queued is
not recorded (Telegram retries it). The consumer records the id again before running the
handlers, so SQS's at-least-once delivery never runs a command twice; a handler that fails
is answered by the bot's error handler and not retried.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from chalicelib.kernel.database import Database
from chalicelib.kernel.idempotency import claim
from chalicelib.kernel.logging import get_logger
from chalicelib.kernel.queues import SqsQueues

UPDATES_QUEUE = "telegram-updates"
INTAKE = "telegram-intake"
CONSUMER = "telegram-consumer"


class TelegramIntake:
    def __init__(self, db: Database, queues: SqsQueues) -> None:
        self._db = db
        self._queues = queues

    def accept(self, update: Mapping[str, Any]) -> bool:
        """Queue a new update; False if this update_id was already accepted."""
        update_id = int(update["update_id"])
        with self._db.connection() as conn:
            if not claim(conn, INTAKE, str(update_id)):
                get_logger().info("duplicate telegram update", extra={"update_id": update_id})
                return False
            # Inside the transaction: if the send fails, the claim rolls back with it.
            self._queues.send(UPDATES_QUEUE, {"update": dict(update)})
        return True


class UpdateRunner:
    """Run the bot's handlers for a queued update once per update_id.

    `prepare` (starting the bot: getMe) runs before the update is recorded, so a Bot API that
    cannot be reached fails the message for a later retry instead of consuming the update.
    """

    def __init__(self, db: Database, process: Callable[[Mapping[str, Any]], None],
                 prepare: Callable[[], object] = lambda: None) -> None:
        self._db = db
        self._process = process
        self._prepare = prepare

    def run(self, update: Mapping[str, Any]) -> bool:
        update_id = int(update["update_id"])
        self._prepare()
        with self._db.connection() as conn:
            first = claim(conn, CONSUMER, str(update_id))
        if not first:
            return False
        get_logger().thread_safe_append_keys(update_id=update_id)
        try:
            self._process(update)
        finally:
            get_logger().thread_safe_remove_keys(["update_id"])
        return True


def first_refusal(db: Database, user_id: int) -> bool:
    """True the first time a stranger is refused (within the idempotency retention window)."""
    with db.connection() as conn:
        return claim(conn, "telegram-refusal", str(user_id))
