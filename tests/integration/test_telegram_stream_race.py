"""One sender per stream: four consumers pumping the same topic's output at once, each with its
own database pool and bot (as separate Lambda invocations), send every piece once, in order,
and never two messages to the topic at the same time."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.bootstrap import Container
from chalicelib.telegram.services.topic_streams import StreamPacing
from tests.support.local_stack import make_container
from tests.support.telegram_bot import GROUP, BotHarness, bot_harness, telegram_settings

SENDERS = 4


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        yield harness


@pytest.fixture
def senders(bot: BotHarness, tmp_path: Path, database_url: str,
            moto_endpoint: str) -> Iterator[list[Container]]:
    built = []
    for i in range(SENDERS):
        container = make_container(telegram_settings(tmp_path / f"sender{i}", database_url, moto_endpoint,
                                                     bot.fake))
        container.stream_pacing = StreamPacing(flush_interval_s=0.0, sleep=lambda _: None)
        built.append(container)
    yield built
    for container in built:
        container.close()


def test_four_senders_on_one_stream_send_each_piece_once_in_order_one_at_a_time(
        bot: BotHarness, senders: list[Container]) -> None:
    thread = bot.container.telegram_gateway.create_topic(GROUP, "web: fix the login bug")
    topic = bot.container.telegram_topics.register("task", "task-1", GROUP, thread, "web: fix the login bug")
    pieces = [f"step {i}: " + "x" * 3000 for i in range(12)]  # one message each
    bot.container.topic_streams.post(topic, pieces)
    bot.fake.send_delay_s = 0.05  # a real round trip: senders overlap if nothing keeps them apart
    start = threading.Barrier(SENDERS)
    errors: list[BaseException] = []

    def pump_until_empty(container: Container) -> None:
        try:
            start.wait()
            deadline = time.monotonic() + 60
            while container.topic_streams.pending_streams() and time.monotonic() < deadline:
                container.topic_streams.pump(topic.stream)
        except BaseException as exc:  # reported by the test thread
            errors.append(exc)

    threads = [threading.Thread(target=pump_until_empty, args=(c,)) for c in senders]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)

    assert errors == []
    assert bot.texts(chat_id=GROUP, thread_id=topic.topic_id) == pieces
    assert bot.fake.most_concurrent_sends == 1
