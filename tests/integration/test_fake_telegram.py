"""The fake Bot API answers the real python-telegram-bot client the way Telegram does."""

from __future__ import annotations

import asyncio
import datetime as dtm
import json
import threading
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from telegram import Bot, BotCommand, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest, Conflict, EndPointNotFound, Forbidden, InvalidToken, RetryAfter
from telegram.ext import Application, CommandHandler, ContextTypes

from tests.fakes.fake_telegram import FIXTURES_DIR, FakeTelegram, load_update_fixture

pytestmark = pytest.mark.integration

GROUP = -1001234567890
ALICE = 111111111
T = TypeVar("T")


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    with FakeTelegram(forums=(GROUP,)) as fake:
        yield fake


def with_bot(fake: FakeTelegram, scenario: Callable[[Bot], Awaitable[T]]) -> T:
    """Run ``scenario`` with an initialised PTB bot talking to ``fake``."""

    async def main() -> T:
        async with Bot(fake.token, base_url=fake.base_url) as bot:
            return await scenario(bot)

    return asyncio.run(main())


def test_bot_learns_its_identity_from_get_me(fake: FakeTelegram) -> None:
    async def scenario(bot: Bot) -> str:
        return bot.username

    assert with_bot(fake, scenario) == "itachi_test_bot"
    assert fake.calls[0].method == "getMe"


def test_sent_message_echoes_chat_and_topic_and_is_recorded(fake: FakeTelegram) -> None:
    topic = fake.open_topic(GROUP, "greetings")

    async def scenario(bot: Bot) -> list[int]:
        first = await bot.send_message(GROUP, "hello topic", message_thread_id=topic)
        second = await bot.send_message(ALICE, "hello Alice")
        assert first.chat.id == GROUP and first.chat.is_forum
        assert first.message_thread_id == topic and first.is_topic_message
        assert second.chat.type == "private"
        return [first.message_id, second.message_id]

    first_id, second_id = with_bot(fake, scenario)

    assert second_id > first_id
    assert fake.sent_texts() == ["hello topic", "hello Alice"]
    assert fake.sent_texts(chat_id=GROUP, thread_id=topic) == ["hello topic"]
    assert fake.calls_to("sendMessage")[0]["chat_id"] == GROUP


def test_inline_keyboard_arrives_decoded_and_comes_back_on_the_message(
    fake: FakeTelegram,
) -> None:
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Run now", callback_data="run:1")]])

    async def scenario(bot: Bot) -> str | object:
        message = await bot.send_message(GROUP, "Run it?", reply_markup=keyboard)
        assert message.reply_markup is not None
        return message.reply_markup.inline_keyboard[0][0].callback_data

    assert with_bot(fake, scenario) == "run:1"
    sent_markup = fake.calls_to("sendMessage")[0]["reply_markup"]
    assert sent_markup["inline_keyboard"][0][0]["callback_data"] == "run:1"


def test_forum_topic_is_created_closed_and_reopened(fake: FakeTelegram) -> None:
    async def scenario(bot: Bot) -> int:
        topic = await bot.create_forum_topic(GROUP, "myproject: fix the login bug")
        assert topic.name == "myproject: fix the login bug"
        assert topic.icon_color == 7322096
        thread = topic.message_thread_id
        assert await bot.edit_forum_topic(GROUP, thread, name="myproject: done")
        assert await bot.close_forum_topic(GROUP, thread)
        with pytest.raises(BadRequest, match="Topic_closed"):
            await bot.send_message(GROUP, "too late", message_thread_id=thread)
        assert await bot.reopen_forum_topic(GROUP, thread)
        await bot.send_message(GROUP, "back again", message_thread_id=thread)
        return thread

    thread = with_bot(fake, scenario)

    assert fake.topics[(GROUP, thread)]["name"] == "myproject: done"
    assert fake.sent_texts(thread_id=thread) == ["back again"]


def test_flood_control_surfaces_as_retry_after(fake: FakeTelegram) -> None:
    fake.fail_next("sendMessage", retry_after=3)

    async def scenario(bot: Bot) -> None:
        with pytest.raises(RetryAfter) as raised:
            await bot.send_message(GROUP, "first try")
        retry_after = raised.value.retry_after
        seconds = retry_after.total_seconds() if isinstance(retry_after, dtm.timedelta) else retry_after
        assert seconds == 3
        await bot.send_message(GROUP, "second try")

    with_bot(fake, scenario)

    assert fake.sent_texts() == ["second try"]
    assert len(fake.calls_to("sendMessage")) == 2


def test_text_over_4096_characters_is_rejected_like_telegram_does(fake: FakeTelegram) -> None:
    async def scenario(bot: Bot) -> None:
        await bot.send_message(GROUP, "x" * 4096)
        with pytest.raises(BadRequest, match="Message is too long"):
            await bot.send_message(GROUP, "x" * 4097)

    with_bot(fake, scenario)

    assert len(fake.sent_texts()) == 1


def test_length_is_counted_in_utf16_code_units_as_telegram_does(fake: FakeTelegram) -> None:
    async def scenario(bot: Bot) -> None:
        await bot.send_message(GROUP, "🙂" * 2048)  # 2048 characters, 4096 units
        with pytest.raises(BadRequest, match="Message is too long"):
            await bot.send_message(GROUP, "🙂" * 2048 + "!")

    with_bot(fake, scenario)


def test_only_a_supergroup_made_a_forum_is_a_forum_and_a_blocked_chat_is_forbidden(
        fake: FakeTelegram) -> None:
    plain = -1005555555555

    async def scenario(bot: Bot) -> None:
        assert (await bot.send_message(plain, "hello")).chat.is_forum is False
        with pytest.raises(BadRequest, match="not a forum"):
            await bot.create_forum_topic(plain, "tasks")
        fake.block(ALICE)
        with pytest.raises(Forbidden, match="blocked by the user"):
            await bot.send_message(ALICE, "hi")

    with_bot(fake, scenario)


def test_sent_message_can_be_edited_once_and_deleted(fake: FakeTelegram) -> None:
    async def scenario(bot: Bot) -> None:
        sent = await bot.send_message(GROUP, "working on it")
        edited = await bot.edit_message_text("done", chat_id=GROUP, message_id=sent.message_id)
        assert not isinstance(edited, bool)
        assert edited.text == "done" and edited.edit_date is not None
        with pytest.raises(BadRequest, match="Message is not modified"):
            await bot.edit_message_text("done", chat_id=GROUP, message_id=sent.message_id)
        with pytest.raises(BadRequest, match="Message to edit not found"):
            await bot.edit_message_text("?", chat_id=GROUP, message_id=9999)
        assert await bot.delete_message(GROUP, sent.message_id)
        with pytest.raises(BadRequest, match="Message to delete not found"):
            await bot.delete_message(GROUP, sent.message_id)

    with_bot(fake, scenario)

    assert fake.sent_texts() == ["working on it"]
    assert fake.messages == {}


def test_small_methods_answer_true_and_are_recorded(fake: FakeTelegram) -> None:
    async def scenario(bot: Bot) -> None:
        assert await bot.send_chat_action(GROUP, "typing", message_thread_id=42)
        assert await bot.answer_callback_query("4382bfdwdsb323b2d9", text="Queued")
        assert await bot.set_my_commands([BotCommand("task", "Queue a task")])

    with_bot(fake, scenario)

    assert fake.calls_to("answerCallbackQuery")[0]["callback_query_id"] == "4382bfdwdsb323b2d9"
    assert fake.commands == [{"command": "task", "description": "Queue a task"}]


def test_document_upload_arrives_as_multipart_bytes(fake: FakeTelegram) -> None:
    async def scenario(bot: Bot) -> str | None:
        message = await bot.send_document(ALICE, b"line 1\nline 2\n", filename="result.txt")
        assert message.document is not None
        return message.document.file_name

    assert with_bot(fake, scenario) == "result.txt"
    assert fake.calls_to("sendDocument")[0]["document"] == b"line 1\nline 2\n"


def test_pushed_update_is_served_by_get_updates_and_parsed(fake: FakeTelegram) -> None:
    update_id = fake.push_update(load_update_fixture("group_task_command"))

    async def scenario(bot: Bot) -> None:
        (update,) = await bot.get_updates(timeout=0)
        assert isinstance(update, Update) and update.update_id == update_id
        assert update.message is not None
        assert update.message.text == "/task myproject fix the login bug"
        assert await bot.get_updates(offset=update_id + 1, timeout=0) == ()

    with_bot(fake, scenario)


def test_long_poll_waits_for_an_update_pushed_later(fake: FakeTelegram) -> None:
    later = threading.Timer(0.3, fake.push_update, [load_update_fixture("private_help_command")])

    async def scenario(bot: Bot) -> float:
        started = time.monotonic()
        later.start()
        updates = await bot.get_updates(timeout=60)
        assert len(updates) == 1
        return time.monotonic() - started

    assert 0.25 < with_bot(fake, scenario) < 30  # woken by the push, long before the poll's 60 s


def test_long_poll_returns_nothing_once_its_timeout_passes(fake: FakeTelegram) -> None:
    async def scenario(bot: Bot) -> float:
        started = time.monotonic()
        assert await bot.get_updates(timeout=1) == ()
        return time.monotonic() - started

    assert 0.9 < with_bot(fake, scenario) < 30  # it waited, and it did come back


def test_active_webhook_blocks_get_updates_until_deleted(fake: FakeTelegram) -> None:
    async def scenario(bot: Bot) -> None:
        assert await bot.set_webhook("https://itachi.example/telegram")
        assert (await bot.get_webhook_info()).url == "https://itachi.example/telegram"
        with pytest.raises(Conflict):
            await bot.get_updates(timeout=0)
        assert await bot.delete_webhook()
        assert await bot.get_updates(timeout=0) == ()

    with_bot(fake, scenario)


def test_unknown_method_is_not_found(fake: FakeTelegram) -> None:
    async def scenario(bot: Bot) -> None:
        with pytest.raises(EndPointNotFound):
            await bot.do_api_request("getStarsOfTheShow")

    with_bot(fake, scenario)

    assert fake.calls[-1].method == "getStarsOfTheShow"


def test_wrong_token_is_unauthorized(fake: FakeTelegram) -> None:
    async def main() -> None:
        async with Bot("999:WRONG", base_url=fake.base_url):
            pass

    with pytest.raises(InvalidToken):
        asyncio.run(main())


def test_json_bodies_are_accepted_too(fake: FakeTelegram) -> None:
    request = urllib.request.Request(
        f"{fake.base_url}{fake.token}/sendMessage",
        data=json.dumps({"chat_id": ALICE, "text": "42"}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        answer = json.load(response)

    assert answer["ok"] and answer["result"]["text"] == "42"
    assert fake.sent_texts(chat_id=ALICE) == ["42"]


@pytest.mark.parametrize("path", sorted(FIXTURES_DIR.glob("*.json")), ids=lambda p: p.stem)
def test_every_update_fixture_parses_with_python_telegram_bot(path: Path) -> None:
    update = Update.de_json(load_update_fixture(path.name), bot=None)

    assert update.update_id >= 100000001
    assert update.effective_user is not None
    assert update.effective_user.id in (ALICE, 999999999)


def test_polling_application_answers_a_pushed_command(fake: FakeTelegram) -> None:
    async def reply_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None
        await context.bot.send_message(update.effective_chat.id, "Itachi commands: /task")

    async def main() -> None:
        app = Application.builder().token(fake.token).base_url(fake.base_url).build()
        app.add_handler(CommandHandler("help", reply_help))
        async with app:
            await app.start()
            assert app.updater is not None
            await app.updater.start_polling(poll_interval=0, timeout=1)
            fake.push_update(load_update_fixture("private_help_command"))
            for _ in range(200):
                if fake.sent_texts():
                    break
                await asyncio.sleep(0.01)
            await app.updater.stop()
            await app.stop()

    asyncio.run(main())

    assert fake.sent_texts(chat_id=ALICE) == ["Itachi commands: /task"]
