"""Update intake, the consumer's runner and the allow-list on in-memory tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from chalicelib.telegram.services.telegram_intake import AccessGuard, TelegramIntake, UpdateRunner
from tests.fakes.telegram_recorders import RecordingUpdateQueue
from tests.fakes.telegram_store import TelegramStore

pytestmark = pytest.mark.unit

ALICE, MALLORY = 111111111, 999999999


def update(update_id: int, text: str = "/help") -> dict[str, Any]:
    return {"update_id": update_id, "message": {"message_id": 1, "text": text}}


@pytest.fixture
def store() -> TelegramStore:
    return TelegramStore()


def test_a_redelivered_update_is_queued_once(store: TelegramStore) -> None:
    queue = RecordingUpdateQueue()
    intake = TelegramIntake(store.unit_of_work, queue)

    assert intake.accept(update(7)) is True
    assert intake.accept(update(7)) is False
    assert intake.accept(update(8)) is True

    assert [u["update_id"] for u in queue.queued] == [7, 8]


def test_an_update_that_could_not_be_queued_is_not_recorded_so_telegrams_retry_is_accepted(
    store: TelegramStore,
) -> None:
    queue = RecordingUpdateQueue(fail=True)
    intake = TelegramIntake(store.unit_of_work, queue)

    with pytest.raises(ConnectionError):
        intake.accept(update(7))

    queue.fail = False
    assert intake.accept(update(7)) is True
    assert [u["update_id"] for u in queue.queued] == [7]


def test_the_consumer_runs_each_update_once_however_often_sqs_delivers_it(store: TelegramStore) -> None:
    ran: list[int] = []
    runner = UpdateRunner(store.unit_of_work, lambda u: ran.append(int(u["update_id"])))

    assert runner.run(update(7)) is True
    assert runner.run(update(7)) is False
    assert runner.run(update(8)) is True

    assert ran == [7, 8]


def test_a_bot_api_that_cannot_be_reached_leaves_the_update_for_a_retry(store: TelegramStore) -> None:
    ran: list[int] = []
    reachable = False

    def start() -> None:
        if not reachable:
            raise ConnectionError("getMe failed")

    runner = UpdateRunner(store.unit_of_work, lambda u: ran.append(int(u["update_id"])), prepare=start)

    with pytest.raises(ConnectionError):
        runner.run(update(7))
    reachable = True
    assert runner.run(update(7)) is True
    assert ran == [7]


def test_a_failing_handler_still_counts_its_update_as_run(store: TelegramStore) -> None:
    def process(u: Mapping[str, Any]) -> None:
        raise RuntimeError("handler bug")

    runner = UpdateRunner(store.unit_of_work, process)

    with pytest.raises(RuntimeError):
        runner.run(update(7))
    assert runner.run(update(7)) is False  # the user was answered once; a retry would act twice


def test_only_allow_listed_users_pass_and_a_stranger_is_refused_once(store: TelegramStore) -> None:
    guard = AccessGuard(store.unit_of_work, [ALICE])

    assert guard.allows(ALICE) and not guard.allows(MALLORY)
    assert guard.first_refusal(MALLORY) is True
    assert guard.first_refusal(MALLORY) is False
