"""Reminders: store one from /remind, and send those that are due (the `reminders` schedule)."""

from __future__ import annotations

from datetime import datetime

from chalicelib.kernel.logging import get_logger
from chalicelib.telegram.domain.reminder_time import Reminder, parse_reminder
from chalicelib.telegram.domain.telegram_records import DueReminder
from chalicelib.telegram.services.ports import MessageSender, Undeliverable, UnitOfWorkFactory


class Reminders:
    def __init__(self, uow: UnitOfWorkFactory, sender: MessageSender) -> None:
        self._uow = uow
        self._sender = sender

    def schedule(self, text: str, *, chat_id: int, topic_id: int, user_id: int, now: datetime) -> Reminder:
        """Parse "<when> <message>" and store it; raise InvalidInput with the usage if unclear."""
        reminder = parse_reminder(text, now)
        with self._uow() as uow:
            uow.reminders.add(chat_id, topic_id, user_id, reminder.message, reminder.due_at)
            uow.commit()
        return reminder

    def pending(self, user_id: int) -> list[DueReminder]:
        with self._uow() as uow:
            return uow.reminders.pending_for(user_id)

    def fire_due(self) -> int:
        """Send every due reminder; one that fails is retried next time (up to its attempts)."""
        with self._uow() as uow:  # taken (marked sent) before sending: two runs never send one twice
            due = uow.reminders.take_due()
            uow.commit()
        sent = 0
        for reminder in due:
            try:
                self._deliver(reminder)
                sent += 1
            except Undeliverable:
                get_logger().warning("reminder undeliverable", extra={"reminder_id": reminder.id})
            except Exception:  # flood control or a network error: next run tries again
                get_logger().exception("reminder not sent", extra={"reminder_id": reminder.id})
                with self._uow() as uow:
                    uow.reminders.release(reminder.id)
                    uow.commit()
        return sent

    def _deliver(self, reminder: DueReminder) -> None:
        text = f"⏰ Reminder: {reminder.message}"
        try:
            self._sender.send(reminder.chat_id, text, topic_id=reminder.topic_id)
        except Undeliverable:
            if not reminder.topic_id:
                raise
            # The topic was closed since: remind in the chat itself.
            self._sender.send(reminder.chat_id, text)
