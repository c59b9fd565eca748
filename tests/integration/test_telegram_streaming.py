"""Streaming task output to its topic: batching, splitting, 429 retry_after, order, and the end."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.kernel.queue_table import QUEUES
from chalicelib.telegram.domain.telegram_records import Topic
from chalicelib.telegram.domain.telegram_text import MESSAGE_LIMIT, utf16_len
from chalicelib.telegram.services.topic_streams import pace_key
from infra.local.sqs_dispatcher import deliver_batch
from tests.fakes.telegram_limits import TelegramLimits, Window
from tests.support.telegram_bot import GROUP, BotHarness, bot_harness

OUTBOX_SPEC = next(q for q in QUEUES if q.key == "telegram-outbox")


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        yield harness


@pytest.fixture
def topic(bot: BotHarness) -> Topic:
    title = "myproject: fix the login bug"
    thread = bot.container.telegram_gateway.create_topic(GROUP, title)
    return bot.container.telegram_topics.register("task", "task-1", GROUP, thread, title)


def _publish(bot: BotHarness, lines: list[str]) -> None:
    bot.container.task_event_publisher.published("task-1", [{"kind": "text", "text": line} for line in lines])


def _topic_lines(bot: BotHarness, topic: Topic) -> list[str]:
    return "\n".join(bot.texts(chat_id=GROUP, thread_id=topic.topic_id)).split("\n")


def test_output_published_between_flushes_goes_out_as_one_message(bot: BotHarness, topic: Topic) -> None:
    _publish(bot, ["reading the code"])
    _publish(bot, ["🔧 Edit src/login.py"])
    _publish(bot, ["running the tests"])

    assert bot.flush() == 1

    assert bot.texts(chat_id=GROUP, thread_id=topic.topic_id) == [
        "reading the code\n🔧 Edit src/login.py\nrunning the tests"]


def test_long_output_is_split_cleanly_into_messages_below_the_limit(bot: BotHarness, topic: Topic) -> None:
    lines = [f"line {i:04d} " + "x" * 80 for i in range(120)]  # about 10,800 characters

    _publish(bot, ["\n".join(lines)])
    bot.flush()

    texts = bot.texts(chat_id=GROUP, thread_id=topic.topic_id)
    assert len(texts) == 4
    assert all(utf16_len(t) <= MESSAGE_LIMIT for t in texts)
    assert all(t.startswith("line ") for t in texts)  # cut between lines, never inside one
    assert _topic_lines(bot, topic) == lines


def test_a_429_during_streaming_waits_retry_after_and_loses_or_reorders_nothing(
    bot: BotHarness, topic: Topic,
) -> None:
    lines = [f"step {i}" for i in range(60)]
    _publish(bot, lines[:10])
    bot.flush()
    bot.fake.fail_next("sendMessage", retry_after=1)
    _publish(bot, lines[10:30])
    _publish(bot, ["y" * 3000])  # forces a second message in the same flush
    _publish(bot, lines[30:60])

    bot.flush()

    assert _topic_lines(bot, topic) == [*lines[:30], "y" * 3000, *lines[30:]]
    assert len(bot.fake.calls_to("sendMessage")) == len(bot.texts(chat_id=GROUP)) + 1  # one refused
    assert 0 < max(bot.sleeps) <= 1.0  # the stream waited for retry_after, not more


def test_a_long_retry_after_reschedules_the_stream_instead_of_blocking(bot: BotHarness, topic: Topic) -> None:
    bot.fake.fail_next("sendMessage", retry_after=30)
    _publish(bot, ["first", "second"])

    assert bot.container.topic_streams.pump(topic.stream) == 0
    assert bot.container.topic_streams.pump(topic.stream) == 0  # still inside retry_after: nothing is tried
    assert len(bot.fake.calls_to("sendMessage")) == 1

    with bot.container.telegram_uow() as uow:  # time passes
        uow.outbox.defer(pace_key(GROUP), 0)
        uow.commit()
    assert bot.container.topic_streams.pump(topic.stream) == 1
    assert bot.texts(chat_id=GROUP, thread_id=topic.topic_id) == ["first\nsecond"]


def test_the_result_closes_the_story_after_all_progress(bot: BotHarness, topic: Topic) -> None:
    _publish(bot, ["all tests pass"])
    bot.container.task_event_publisher.finished("task-1", "completed", "Fixed the session expiry check.",
                                    files_changed=["src/login.py", "tests/test_login.py"])
    _publish(bot, ["late output after the end"])

    bot.flush()

    (text,) = bot.texts(chat_id=GROUP, thread_id=topic.topic_id)
    assert text == ("all tests pass\n✅ Completed\n\nFixed the session expiry check.\n\nFiles changed:\n"
                    "- src/login.py\n- tests/test_login.py")
    assert bot.fake.topics[(GROUP, topic.topic_id)] == {
        **bot.fake.topics[(GROUP, topic.topic_id)], "name": "✅ myproject: fix the login bug", "closed": True}
    assert bot.container.telegram_topics.by_ref("task", "task-1").status == "closed"  # type: ignore[union-attr]
    assert bot.container.topic_streams.pending_streams() == []


def test_output_for_a_closed_topic_is_dropped_not_retried_forever(bot: BotHarness, topic: Topic) -> None:
    bot.container.telegram_gateway.close_topic(GROUP, topic.topic_id)
    _publish(bot, ["nobody will read this"])

    assert bot.flush() == 0

    assert bot.container.topic_streams.pending_streams() == []


def test_the_outbox_queue_wakes_the_sender_through_sqs(bot: BotHarness, topic: Topic) -> None:
    _publish(bot, ["hello from the agent"])

    received = deliver_batch(bot.container.queues, OUTBOX_SPEC, wait_s=1)

    assert received == 1
    assert bot.texts(chat_id=GROUP, thread_id=topic.topic_id) == ["hello from the agent"]


def test_events_of_a_task_without_a_topic_go_nowhere(bot: BotHarness) -> None:
    bot.container.task_event_publisher.published("task-without-topic", [{"kind": "text", "text": "hi"}])

    assert bot.container.topic_streams.pending_streams() == []


def test_events_published_out_of_order_go_out_in_recorded_order(bot: BotHarness, topic: Topic) -> None:
    publisher = bot.container.task_event_publisher
    publisher.published("task-1", [{"kind": "started", "text": "attempt 1 on laptop", "seq": 3}])
    publisher.published("task-1", [{"kind": "dispatched", "text": "sent to laptop", "seq": 2}])

    bot.flush()

    assert bot.texts(chat_id=GROUP, thread_id=topic.topic_id) == ["• sent to laptop\n▶️ attempt 1 on laptop"]


def test_events_of_a_task_whose_topic_is_not_registered_yet_use_the_topic_its_record_names(
    bot: BotHarness,
) -> None:
    from chalicelib.tasks.domain.task_model import NewTask

    thread = bot.container.telegram_gateway.create_topic(GROUP, "myproject: early events")
    task = bot.container.tasks.create(NewTask("myproject", "early events", telegram_chat_id=GROUP,
                                              telegram_topic_id=thread))

    bot.container.task_event_publisher.published(task.id, [{"kind": "text", "text": "first words", "seq": 2}])
    bot.flush()

    assert bot.texts(chat_id=GROUP, thread_id=thread) == [f"Task {task.id[:8]} queued.\nfirst words"]


def test_the_flush_pace_is_kept_without_holding_the_consumer_and_extra_wake_ups_cost_nothing(
    bot: BotHarness, topic: Topic,
) -> None:
    from datetime import UTC, datetime, timedelta

    from chalicelib.telegram.adapters.sqs_telegram_queues import SqsStreamTrigger
    from chalicelib.telegram.services.topic_streams import StreamPacing, TopicStreams

    slept: list[float] = []
    frozen: list[datetime] = []  # the pacing's clock, set by the test; real time until then

    def clock() -> datetime:
        return frozen[-1] if frozen else datetime.now(UTC)

    streams = TopicStreams(bot.container.telegram_uow, bot.container.telegram_gateway,
                           SqsStreamTrigger(bot.container.queues), StreamPacing(30.0, slept.append, clock))
    streams.post(topic, ["first"])
    assert streams.pump(topic.stream) == 1
    assert streams.pump(topic.stream) == 0 and slept == []  # nothing pending: no wait at all
    with bot.container.db.connection() as conn:
        row = conn.execute("SELECT last_flush_at FROM telegram_streams WHERE stream = %s",
                           (pace_key(GROUP),)).fetchone()
    assert row is not None
    flushed_at = row["last_flush_at"]

    streams.post(topic, ["second"])
    frozen.append(flushed_at + timedelta(seconds=1))
    assert streams.pump(topic.stream) == 0 and slept == []  # 29 s early: rescheduled, not slept
    frozen.append(flushed_at + timedelta(seconds=29.75))
    assert streams.pump(topic.stream) == 1  # close enough: the rest of the pace is slept

    assert slept == [pytest.approx(0.25)]
    assert bot.texts(chat_id=GROUP, thread_id=topic.topic_id) == ["first", "second"]


def test_two_topics_streaming_at_the_production_pace_stay_under_the_groups_flood_limit(
    bot: BotHarness, topic: Topic,
) -> None:
    other_thread = bot.container.telegram_gateway.create_topic(GROUP, "myproject: a session")
    other = bot.container.telegram_topics.register("session", "s-1", GROUP, other_thread,
                                                   "myproject: a session")
    pieces = [f"step {i}: " + "x" * 3000 for i in range(30)]  # one message each: 60 to one group
    bot.container.topic_streams.post(topic, pieces)
    bot.container.topic_streams.post(other, pieces)

    assert bot.flush() == 60

    assert bot.fake.flood.refused == 0  # 20 a minute per group, in the harness's scaled time
    assert bot.texts(chat_id=GROUP, thread_id=topic.topic_id) == pieces
    assert bot.texts(chat_id=GROUP, thread_id=other.topic_id) == pieces


def test_a_429_from_the_groups_flood_limit_is_honoured_for_its_retry_after(
    bot: BotHarness, topic: Topic,
) -> None:
    bot.fake.flood.limits = TelegramLimits(group=Window(20, 2.0))  # a minute, shortened to 2 s
    for i in range(20):  # the bot's other messages fill the group's window
        bot.container.telegram_gateway.send(GROUP, f"announcement {i}")
    bot.container.topic_streams.post(topic, ["after the flood"])

    assert bot.container.topic_streams.pump(topic.stream) == 0  # refused: the wait is recorded
    refused_at = time.monotonic()
    assert bot.fake.flood.refused == 1
    bot.flush()

    assert bot.texts(chat_id=GROUP, thread_id=topic.topic_id) == ["after the flood"]
    assert time.monotonic() - refused_at >= 0.9  # retry_after (whole seconds) from the refusal
    assert bot.fake.flood.refused == 1  # the stream waited, it did not hammer
