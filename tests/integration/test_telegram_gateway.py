"""The Telegram gateway's error paths, through the real python-telegram-bot client and the
fake Bot API refusing what Telegram refuses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.telegram.domain.telegram_text import TELEGRAM_HARD_LIMIT, split_message, utf16_len
from chalicelib.telegram.services.ports import FloodControl, MessageSender, SendFailed, Undeliverable
from tests.support.telegram_bot import ALICE, GROUP, BotHarness, bot_harness

OTHER_SUPERGROUP = -1009876543210  # a supergroup that is not a forum


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        yield harness


def gateway(bot: BotHarness) -> MessageSender:
    return bot.container.telegram_gateway


def test_a_message_to_a_topic_that_does_not_exist_is_undeliverable(bot: BotHarness) -> None:
    with pytest.raises(Undeliverable, match=r"(?i)message thread not found"):
        gateway(bot).send(GROUP, "progress", topic_id=4242)
    assert bot.texts() == []


def test_a_message_to_a_closed_topic_is_undeliverable(bot: BotHarness) -> None:
    topic = gateway(bot).create_topic(GROUP, "web: fix login")
    gateway(bot).close_topic(GROUP, topic)
    with pytest.raises(Undeliverable, match=r"(?i)topic_closed"):
        gateway(bot).send(GROUP, "late output", topic_id=topic)


def test_a_user_who_blocked_the_bot_and_a_group_that_removed_it_are_undeliverable(bot: BotHarness) -> None:
    bot.fake.block(ALICE)
    bot.fake.block(GROUP)
    with pytest.raises(Undeliverable, match=r"(?i)blocked by the user"):
        gateway(bot).send(ALICE, "your reminder")
    with pytest.raises(Undeliverable, match=r"(?i)kicked"):
        gateway(bot).create_topic(GROUP, "web: fix login")


def test_a_topic_in_a_supergroup_that_is_not_a_forum_is_undeliverable(bot: BotHarness) -> None:
    with pytest.raises(Undeliverable, match=r"(?i)not a forum"):
        gateway(bot).create_topic(OTHER_SUPERGROUP, "web: fix login")
    assert gateway(bot).send(OTHER_SUPERGROUP, "plain messages still go out") > 0


def test_flood_control_becomes_a_wait_of_telegrams_retry_after(bot: BotHarness) -> None:
    bot.fake.fail_next("sendMessage", status=429, retry_after=7)
    with pytest.raises(FloodControl) as flood:
        gateway(bot).send(GROUP, "hello")
    assert flood.value.seconds == 7
    assert gateway(bot).send(GROUP, "hello") > 0  # the next try goes through


def test_closing_or_renaming_a_topic_twice_changes_nothing_and_raises_nothing(bot: BotHarness) -> None:
    topic = gateway(bot).create_topic(GROUP, "web: fix login")
    gateway(bot).rename_topic(GROUP, topic, "✅ web: fix login")
    gateway(bot).rename_topic(GROUP, topic, "✅ web: fix login")
    gateway(bot).close_topic(GROUP, topic)
    gateway(bot).close_topic(GROUP, topic)
    assert bot.fake.topics[(GROUP, topic)]["closed"] is True
    assert bot.fake.topics[(GROUP, topic)]["name"] == "✅ web: fix login"


def test_closing_a_topic_telegram_does_not_know_is_undeliverable(bot: BotHarness) -> None:
    with pytest.raises(Undeliverable, match=r"(?i)topic_id_invalid"):
        gateway(bot).close_topic(GROUP, 999_999)


def test_telegram_counts_length_in_utf16_units_and_split_messages_fit(bot: BotHarness) -> None:
    emoji = "🚀" * 2100  # 2100 characters, 4200 UTF-16 units
    with pytest.raises(SendFailed, match=r"(?i)too long"):
        gateway(bot).send(GROUP, emoji)
    parts = split_message(emoji)
    for part in parts:
        gateway(bot).send(GROUP, part)
    assert all(utf16_len(t) <= TELEGRAM_HARD_LIMIT for t in bot.texts(chat_id=GROUP))
    assert "".join(bot.texts(chat_id=GROUP)) == emoji
