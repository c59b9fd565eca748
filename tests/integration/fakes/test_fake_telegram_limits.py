"""The fake Bot API refuses, through the real python-telegram-bot client, what Telegram refuses:
flood limits a chat and overall (429 with retry_after), unparsable entities, oversized buttons."""

from __future__ import annotations

import asyncio
import datetime as dtm
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, RetryAfter

from tests.fakes.fake_telegram import FakeTelegram
from tests.fakes.telegram_limits import UNLIMITED, TelegramLimits, Window

pytestmark = pytest.mark.integration

GROUP = -1001234567890
OTHER_GROUP = -1009876543210
ALICE = 111111111
T = TypeVar("T")


class Clock:
    """The fake's clock, moved by the test: limits are checked without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def with_bot(fake: FakeTelegram, scenario: Callable[[Bot], Awaitable[T]]) -> T:
    async def main() -> T:
        async with Bot(fake.token, base_url=fake.base_url) as bot:
            return await scenario(bot)

    return asyncio.run(main())


def seconds(value: int | dtm.timedelta) -> float:
    return value.total_seconds() if isinstance(value, dtm.timedelta) else float(value)


def test_the_21st_message_in_a_minute_to_a_group_is_refused_with_retry_after() -> None:
    clock = Clock()
    with FakeTelegram(forums=(GROUP,), clock=clock) as fake:
        async def scenario(bot: Bot) -> float:
            for i in range(20):
                await bot.send_message(GROUP, f"line {i}")
                clock.now += 1.0
            with pytest.raises(RetryAfter) as caught:
                await bot.send_message(GROUP, "one too many")
            await bot.send_message(OTHER_GROUP, "another group has its own minute")
            clock.now += seconds(caught.value.retry_after)
            await bot.send_message(GROUP, "after retry_after")
            return seconds(caught.value.retry_after)

        waited = with_bot(fake, scenario)
    assert waited == 40  # the first of the 20 (sent 20 s ago) leaves the window 60 s after it was sent
    assert len(fake.sent_texts(GROUP)) == 21 and fake.flood.refused == 1
    assert fake.calls_to("sendMessage")[20]["text"] == "one too many"


def test_a_private_chat_takes_a_short_burst_then_one_message_a_second_on_average() -> None:
    clock = Clock()
    with FakeTelegram(clock=clock) as fake:
        async def scenario(bot: Bot) -> float:
            for i in range(30):
                await bot.send_message(ALICE, f"burst {i}")
                clock.now += 0.5
            with pytest.raises(RetryAfter) as caught:
                await bot.send_message(ALICE, "too soon")
            clock.now += seconds(caught.value.retry_after)
            await bot.send_message(ALICE, "after retry_after")
            return seconds(caught.value.retry_after)

        waited = with_bot(fake, scenario)
    assert waited == 15  # 30 messages in 15 s: the first leaves the 30 s window 15 s later
    assert fake.sent_texts(ALICE)[-1] == "after retry_after"


def test_more_than_30_messages_a_second_across_chats_are_refused() -> None:
    clock = Clock()
    with FakeTelegram(clock=clock) as fake:
        async def scenario(bot: Bot) -> None:
            for user in range(30):
                await bot.send_message(ALICE + user, "news")
            with pytest.raises(RetryAfter):
                await bot.send_message(ALICE + 30, "news")

        with_bot(fake, scenario)
    assert len(fake.sent_messages()) == 30


def test_limits_can_be_scaled_for_tests_or_lifted() -> None:
    fast = TelegramLimits().scaled(0.01)
    assert fast.group == Window(20, 0.6) and fast.overall == Window(30, 0.01)
    with FakeTelegram(forums=(GROUP,), limits=UNLIMITED) as fake:
        async def scenario(bot: Bot) -> None:
            for i in range(25):
                await bot.send_message(GROUP, f"line {i}")

        with_bot(fake, scenario)
    assert fake.flood.refused == 0


@pytest.mark.parametrize(("text", "parse_mode", "reason"), [
    ("<b>bold", "HTML", 'Can\'t find end tag corresponding to start tag "b"'),
    ("<b>bold</i>", "HTML", "Unexpected end tag"),
    ("<script>x</script>", "HTML", 'Unsupported start tag "script"'),
    ("1 < 2", "HTML", "Unsupported start tag"),
    ("fish & chips", "HTML", "Unsupported entity"),
    ("*bold", "MarkdownV2", "Can't find end of Bold entity"),
    ("Done.", "MarkdownV2", "Character '.' is reserved"),
    ("v1.2-beta", "MarkdownV2", "Character '.' is reserved"),
])
def test_text_that_does_not_parse_in_its_parse_mode_is_refused(text: str, parse_mode: str,
                                                               reason: str) -> None:
    with FakeTelegram(forums=(GROUP,)) as fake:
        async def scenario(bot: Bot) -> str:
            with pytest.raises(BadRequest) as caught:
                await bot.send_message(GROUP, text, parse_mode=parse_mode)
            return str(caught.value)

        message = with_bot(fake, scenario)
    assert "can't parse entities" in message.lower() and reason.lower() in message.lower()
    assert fake.sent_messages() == []


def test_well_formed_entities_are_accepted_in_sends_and_edits() -> None:
    with FakeTelegram(forums=(GROUP,)) as fake:
        async def scenario(bot: Bot) -> None:
            sent = await bot.send_message(GROUP, '<b>Task</b> <a href="https://x.y">done</a> &lt;3',
                                          parse_mode="HTML")
            await bot.edit_message_text(r"*Task* done\. `a.b` [link](https://x.y/a_b)", chat_id=GROUP,
                                        message_id=sent.message_id, parse_mode="MarkdownV2")
            with pytest.raises(BadRequest, match="reserved"):
                await bot.edit_message_text("done!", chat_id=GROUP, message_id=sent.message_id,
                                            parse_mode="MarkdownV2")

        with_bot(fake, scenario)
    assert len(fake.sent_messages(GROUP)) == 1


def test_callback_data_over_64_bytes_is_refused_as_button_data_invalid() -> None:
    def keyboard(data: str) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup([[InlineKeyboardButton("Keep new", callback_data=data)]])

    with FakeTelegram(forums=(GROUP,)) as fake:
        async def scenario(bot: Bot) -> None:
            with pytest.raises(BadRequest, match="Button_data_invalid"):
                await bot.send_message(GROUP, "Resolve?", reply_markup=keyboard("é" * 33))  # 66 bytes
            sent = await bot.send_message(GROUP, "Resolve?", reply_markup=keyboard("k" * 64))
            with pytest.raises(BadRequest, match="Button_data_invalid"):
                await bot.edit_message_reply_markup(GROUP, sent.message_id, reply_markup=keyboard("k" * 65))

        with_bot(fake, scenario)
    assert len(fake.sent_messages(GROUP)) == 1
