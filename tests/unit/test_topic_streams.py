"""Topic streams on in-memory tables: packing, order, the flush pace, flood control, closing."""

from __future__ import annotations

import pytest

from chalicelib.telegram.domain.telegram_records import Topic
from chalicelib.telegram.domain.telegram_text import MESSAGE_LIMIT
from chalicelib.telegram.services.ports import FloodControl, SendFailed, Undeliverable
from chalicelib.telegram.services.topic_streams import (
    BUSY_RETRY_S,
    MAX_ROWS_PER_PUMP,
    StreamPacing,
    TopicStreams,
    pace_key,
)
from tests.fakes.telegram_recorders import RecordingSender, RecordingTrigger
from tests.fakes.telegram_store import FakeClock, TelegramStore

pytestmark = pytest.mark.unit

GROUP = -1001234567890
TOPIC = Topic("task", "task-1", GROUP, 42, "myproject: fix the login bug", "open")


class Streams:
    """TopicStreams over a fresh store, with the pieces a test looks at."""

    def __init__(self, interval_s: float = 1.5) -> None:
        self.clock = FakeClock()
        self.store = TelegramStore(self.clock)
        self.sender = RecordingSender()
        self.trigger = RecordingTrigger()
        self.streams = TopicStreams(self.store.unit_of_work, self.sender, self.trigger,
                                    StreamPacing(interval_s, self.clock.sleep, self.clock.now))
        with self.store.unit_of_work() as uow:
            uow.topics.register(TOPIC.kind, TOPIC.ref_id, TOPIC.chat_id, TOPIC.topic_id, TOPIC.title)
            uow.commit()

    def pending(self) -> list[str]:
        with self.store.unit_of_work() as uow:
            return [r.body for r in uow.outbox.pending(TOPIC.stream)]


@pytest.fixture
def s() -> Streams:
    return Streams()


def test_posted_output_is_queued_and_its_stream_woken_once_committed(s: Streams) -> None:
    s.streams.post(TOPIC, ["reading the code", "running the tests"])

    assert s.pending() == ["reading the code", "running the tests"]
    assert s.trigger.wake_ups == [(TOPIC.stream, 0)]


def test_no_wake_up_is_queued_when_the_outbox_write_does_not_commit(s: Streams) -> None:
    s.store.fail_commits = True

    with pytest.raises(ConnectionError):
        s.streams.post(TOPIC, ["reading the code"])

    assert s.trigger.wake_ups == []
    s.store.fail_commits = False
    assert s.pending() == []


def test_a_lost_wake_up_is_logged_not_raised_since_the_sweep_finds_the_stream(s: Streams) -> None:
    s.trigger.fail = True

    s.streams.post(TOPIC, ["reading the code"])

    assert s.pending() == ["reading the code"]
    s.clock.advance(31)
    assert s.streams.pending_streams() == [TOPIC.stream]


def test_short_pieces_are_packed_into_one_message_in_order(s: Streams) -> None:
    s.streams.post(TOPIC, ["one", "two", "three"])

    assert s.streams.pump(TOPIC.stream) == 1
    assert s.sender.texts() == ["one\ntwo\nthree"]
    assert s.pending() == []


def test_pieces_that_do_not_fit_together_go_out_as_several_messages_one_per_pace(s: Streams) -> None:
    big = "x" * (MESSAGE_LIMIT - 10)
    s.streams.post(TOPIC, [big, big, "tail"])

    assert s.streams.pump(TOPIC.stream) == 1
    assert s.trigger.wake_ups[-1] == (TOPIC.stream, 1)  # the rest waits for the chat's pace
    s.clock.advance(1.5)
    assert s.streams.pump(TOPIC.stream) == 1
    assert s.sender.texts() == [big, f"{big}\ntail"]


def test_two_topics_of_one_chat_share_its_pace(s: Streams) -> None:
    other = Topic("session", "s-1", GROUP, 43, "myproject: a session", "open")
    with s.store.unit_of_work() as uow:
        uow.topics.register(other.kind, other.ref_id, other.chat_id, other.topic_id, other.title)
        uow.commit()
    s.streams.post(TOPIC, ["task output"])
    s.streams.post(other, ["session output"])

    assert s.streams.pump(TOPIC.stream) == 1
    assert s.streams.pump(other.stream) == 0  # the chat sent a message a moment ago
    assert s.trigger.wake_ups[-1] == (other.stream, 1)
    s.clock.advance(1.5)
    assert s.streams.pump(other.stream) == 1
    assert s.sender.texts() == ["task output", "session output"]


def test_another_stream_sending_to_the_same_chat_holds_the_pump_back(s: Streams) -> None:
    s.streams.post(TOPIC, ["first"])
    with s.store.unit_of_work() as other:
        assert other.outbox.try_lock(pace_key(GROUP))
        assert s.streams.pump(TOPIC.stream) == 0
    assert s.trigger.wake_ups[-1] == (TOPIC.stream, BUSY_RETRY_S)
    assert s.streams.pump(TOPIC.stream) == 1


def test_output_published_out_of_order_is_sent_by_its_position(s: Streams) -> None:
    s.streams.post(TOPIC, ["third"], [3])
    s.streams.post(TOPIC, ["first", "second"], [1, 2])
    s.streams.post(TOPIC, ["unpositioned"])

    s.streams.pump(TOPIC.stream)

    assert s.sender.texts() == ["first\nsecond\nthird\nunpositioned"]


def test_an_extra_wake_up_with_nothing_pending_costs_nothing(s: Streams) -> None:
    assert s.streams.pump(TOPIC.stream) == 0
    assert s.sender.sent == [] and s.clock.slept == [] and s.trigger.wake_ups == []


def test_a_flush_too_soon_after_the_last_is_rescheduled_not_slept(s: Streams) -> None:
    s.streams.post(TOPIC, ["first"])
    s.streams.pump(TOPIC.stream)
    s.streams.post(TOPIC, ["second"])
    s.trigger.wake_ups.clear()

    assert s.streams.pump(TOPIC.stream) == 0

    assert s.clock.slept == []
    assert s.trigger.wake_ups == [(TOPIC.stream, 1)]  # 1.5 s to go: an SQS delay of 1 s, then the rest
    assert s.pending() == ["second"]


def test_the_last_fraction_of_the_pace_is_slept_then_the_flush_goes_out(s: Streams) -> None:
    s.streams.post(TOPIC, ["first"])
    s.streams.pump(TOPIC.stream)
    s.streams.post(TOPIC, ["second"])
    s.clock.advance(1.2)

    assert s.streams.pump(TOPIC.stream) == 1

    assert s.clock.slept == [pytest.approx(0.3)]
    assert s.sender.texts() == ["first", "second"]


def test_flood_control_keeps_the_rows_and_resumes_after_retry_after(s: Streams) -> None:
    s.streams.post(TOPIC, ["first", "second"])
    s.sender.fail_next(FloodControl(30))
    s.trigger.wake_ups.clear()

    assert s.streams.pump(TOPIC.stream) == 0
    assert s.pending() == ["first", "second"]
    assert s.trigger.wake_ups == [(TOPIC.stream, 30)]

    s.clock.advance(10)
    assert s.streams.pump(TOPIC.stream) == 0  # still inside retry_after: nothing is tried
    assert s.trigger.wake_ups[-1] == (TOPIC.stream, 20)

    s.clock.advance(20)
    assert s.streams.pump(TOPIC.stream) == 1
    assert s.sender.texts() == ["first\nsecond"]


def test_a_short_retry_after_is_slept_through(s: Streams) -> None:
    s.streams.post(TOPIC, ["first"])
    with s.store.unit_of_work() as uow:
        uow.outbox.defer(pace_key(GROUP), 1.5)  # Telegram's retry_after holds the whole chat
        uow.commit()

    assert s.streams.pump(TOPIC.stream) == 1
    assert s.clock.slept == [pytest.approx(1.5)]


def test_a_closed_or_deleted_topic_drops_its_pending_output(s: Streams) -> None:
    s.streams.post(TOPIC, ["first", "second"])
    s.sender.fail_next(Undeliverable("message thread not found"))

    assert s.streams.pump(TOPIC.stream) == 0
    assert s.pending() == []


def test_a_network_error_fails_the_pump_and_keeps_every_row(s: Streams) -> None:
    s.streams.post(TOPIC, ["first"])
    s.sender.fail_next(SendFailed("timed out"))

    with pytest.raises(SendFailed):
        s.streams.pump(TOPIC.stream)
    assert s.pending() == ["first"]


def test_closing_renames_and_closes_the_topic_after_everything_before_it(s: Streams) -> None:
    s.streams.post(TOPIC, ["all tests pass"])
    s.streams.close(TOPIC, "✅ myproject: fix the login bug")
    s.streams.post(TOPIC, ["late output"])

    for _ in range(3):
        s.streams.pump(TOPIC.stream)
        s.clock.advance(1.5)

    assert s.sender.texts() == ["all tests pass", "late output"]
    assert s.sender.renamed == [(GROUP, 42, "✅ myproject: fix the login bug")]
    assert s.sender.closed == [(GROUP, 42)]
    with s.store.unit_of_work() as uow:
        assert uow.topics.by_ref("task", "task-1").status == "closed"  # type: ignore[union-attr]


def test_a_stream_another_sender_holds_is_looked_at_again_later(s: Streams) -> None:
    s.streams.post(TOPIC, ["first"])
    s.trigger.wake_ups.clear()

    with s.store.unit_of_work() as other:
        assert other.outbox.try_lock(TOPIC.stream)
        assert s.streams.pump(TOPIC.stream) == 0

    assert s.sender.sent == []
    assert s.trigger.wake_ups == [(TOPIC.stream, BUSY_RETRY_S)]
    assert s.streams.pump(TOPIC.stream) == 1  # the lock ended with its unit of work


def test_a_full_pump_asks_for_another_one(s: Streams) -> None:
    s.streams.post(TOPIC, [f"line {i}" for i in range(MAX_ROWS_PER_PUMP + 5)])
    s.trigger.wake_ups.clear()

    s.streams.pump(TOPIC.stream)

    assert len(s.pending()) == 5
    assert s.trigger.wake_ups == [(TOPIC.stream, BUSY_RETRY_S)]


def test_wake_stalled_wakes_only_streams_waiting_longer_than_asked(s: Streams) -> None:
    other = Topic("session", "s-1", GROUP, 43, "laptop: session", "open")
    s.streams.post(TOPIC, ["old"])
    s.clock.advance(40)
    s.streams.post(other, ["new"])
    s.trigger.wake_ups.clear()

    assert s.streams.wake_stalled(30.0) == 1
    assert s.trigger.wake_ups == [(TOPIC.stream, 0)]


def test_a_close_right_after_the_last_message_goes_with_it_without_waiting_for_the_pace(s: Streams) -> None:
    s.streams.post(TOPIC, ["✅ Completed"])
    s.streams.close(TOPIC, "✅ myproject: fix the login bug")

    assert s.streams.pump(TOPIC.stream) == 1

    assert s.sender.closed == [(GROUP, 42)] and s.pending() == []
