"""Reminders on in-memory tables: scheduled from /remind, sent once when due, retried on failure."""

from __future__ import annotations

from datetime import timedelta

import pytest

from chalicelib.kernel.errors import InvalidInput
from chalicelib.telegram.services.ports import FloodControl, SendFailed, Undeliverable
from chalicelib.telegram.services.reminders import Reminders
from tests.fakes.telegram_recorders import RecordingSender, Sent
from tests.fakes.telegram_store import MAX_ATTEMPTS, TelegramStore

pytestmark = pytest.mark.unit

GROUP, ALICE = -1001234567890, 111111111


@pytest.fixture
def store() -> TelegramStore:
    return TelegramStore()


@pytest.fixture
def sender() -> RecordingSender:
    return RecordingSender()


@pytest.fixture
def reminders(store: TelegramStore, sender: RecordingSender) -> Reminders:
    return Reminders(store.unit_of_work, sender)


def schedule(reminders: Reminders, store: TelegramStore, text: str, topic_id: int = 0) -> None:
    reminders.schedule(text, chat_id=GROUP, topic_id=topic_id, user_id=ALICE, now=store.clock.now())


def test_a_reminder_is_sent_once_when_due_and_not_before(
    reminders: Reminders, store: TelegramStore, sender: RecordingSender,
) -> None:
    schedule(reminders, store, "30m stretch")

    assert reminders.fire_due() == 0
    assert [r.message for r in reminders.pending(ALICE)] == ["stretch"]
    store.clock.advance(timedelta(minutes=31).total_seconds())

    assert reminders.fire_due() == 1
    assert reminders.fire_due() == 0
    assert sender.sent == [Sent(GROUP, 0, "⏰ Reminder: stretch")]
    assert reminders.pending(ALICE) == []


def test_an_unclear_time_is_refused_with_the_usage_and_nothing_is_stored(
    reminders: Reminders, store: TelegramStore,
) -> None:
    with pytest.raises(InvalidInput):
        schedule(reminders, store, "someday stretch")
    assert reminders.pending(ALICE) == []


def test_a_reminder_that_could_not_be_sent_is_retried_up_to_its_attempts(
    reminders: Reminders, store: TelegramStore, sender: RecordingSender,
) -> None:
    schedule(reminders, store, "30m stretch")
    store.clock.advance(31 * 60)
    sender.fail_next(FloodControl(5), *[SendFailed("timed out")] * (MAX_ATTEMPTS - 1))

    sent = [reminders.fire_due() for _ in range(MAX_ATTEMPTS + 1)]

    assert sent == [0] * (MAX_ATTEMPTS + 1)  # the fifth failure used the last attempt
    assert sender.sent == [] and sender.failures == []
    assert reminders.pending(ALICE) == []


def test_a_reminder_for_a_closed_topic_is_sent_to_the_chat_itself(
    reminders: Reminders, store: TelegramStore, sender: RecordingSender,
) -> None:
    schedule(reminders, store, "30m stretch", topic_id=42)
    store.clock.advance(31 * 60)
    sender.fail_next(Undeliverable("topic_closed"))

    assert reminders.fire_due() == 1
    assert sender.sent == [Sent(GROUP, 0, "⏰ Reminder: stretch")]


def test_a_reminder_for_a_chat_the_bot_left_is_dropped_not_retried(
    reminders: Reminders, store: TelegramStore, sender: RecordingSender,
) -> None:
    schedule(reminders, store, "30m stretch")
    store.clock.advance(31 * 60)
    sender.fail_next(Undeliverable("bot was kicked"))

    assert reminders.fire_due() == 0
    assert reminders.fire_due() == 0
    assert sender.sent == [] and reminders.pending(ALICE) == []
