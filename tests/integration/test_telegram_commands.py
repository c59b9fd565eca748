"""Every bot command through the real python-telegram-bot client against the fake Bot API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.fake_telegram import load_update_fixture
from tests.support.telegram_bot import ALICE, GROUP, MALLORY, BotHarness, bot_harness, message_update


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        yield harness


def test_help_lists_every_command_in_the_chat_it_was_asked(bot: BotHarness) -> None:
    bot.send(load_update_fixture("private_help_command"))

    text = bot.last_text(chat_id=ALICE)
    for usage in ("/task [--plan] <project> <description>", "/session [--plan] <machine> <prompt>", "/close",
                  "/cancel <task>",
                  "/status", "/machines", "/recall <query>", "/learn", "/feedback <task> good|bad", "/repos",
                  "/engines [machine] [order]", "/remind <when> <message>", "/start", "/help"):
        assert usage in text


def test_start_introduces_the_bot(bot: BotHarness) -> None:
    bot.send(message_update("/start", chat_id=ALICE))

    assert "I am Itachi" in bot.last_text(chat_id=ALICE)


def test_a_stranger_gets_one_polite_refusal_and_nothing_runs(bot: BotHarness) -> None:
    bot.send(load_update_fixture("stranger_message"))
    bot.send(message_update("/task myproject rm -rf /", chat_id=MALLORY, user_id=MALLORY))

    assert bot.texts(chat_id=MALLORY) == [
        "Sorry, this is a private Itachi bot and you are not on its list of users. Your Telegram user id "
        "is 999999999: its owner can add it to TELEGRAM_ALLOWED_USERS."]
    assert bot.container.tasks.list_tasks() == []
    assert bot.fake.calls_to("createForumTopic") == []


def test_the_same_update_twice_has_one_effect(bot: BotHarness) -> None:
    update = load_update_fixture("private_help_command")

    assert bot.send(update) is True
    assert bot.send(update) is False

    assert len(bot.texts(chat_id=ALICE)) == 1


def test_an_edited_message_runs_nothing(bot: BotHarness) -> None:
    bot.send(load_update_fixture("edited_message"))

    assert bot.fake.calls_to("sendMessage") == []


def test_an_unknown_command_points_to_help(bot: BotHarness) -> None:
    bot.send(message_update("/frobnicate now", chat_id=ALICE))

    assert "/help" in bot.last_text(chat_id=ALICE)


def test_a_command_with_bad_arguments_answers_with_its_usage(bot: BotHarness) -> None:
    bot.send(message_update("/task onlyaproject"))

    assert bot.last_text(chat_id=GROUP) == "Usage: /task [--plan] <project> <description>"


def test_an_unexpected_failure_is_logged_and_reported_without_internals(bot: BotHarness) -> None:
    with bot.container.db.connection() as conn:
        conn.execute("DROP TABLE tasks CASCADE")

    bot.send(message_update("/status"))

    reply = bot.last_text(chat_id=GROUP)
    assert reply.startswith("Sorry, something went wrong")
    assert "tasks" not in reply and "relation" not in reply


def test_remind_stores_a_reminder_and_the_schedule_sends_it_when_due(bot: BotHarness) -> None:
    import time

    topic = bot.fake.open_topic(GROUP, "chores")
    bot.send(message_update("/remind 1s stretch your legs", thread_id=topic))
    assert bot.last_text(chat_id=GROUP, thread_id=topic).startswith("OK, I will remind you at ")
    bot.send(message_update("/remind", thread_id=topic))
    assert "stretch your legs" in bot.last_text(chat_id=GROUP, thread_id=topic)

    time.sleep(1.2)
    from functions.reminders import handler

    assert handler({}, None) == {"sent": 1}
    assert handler({}, None) == {"sent": 0}
    assert bot.last_text(chat_id=GROUP, thread_id=topic) == "⏰ Reminder: stretch your legs"


def test_remind_with_an_unclear_time_explains_the_format(bot: BotHarness) -> None:
    bot.send(message_update("/remind someday buy milk"))

    assert "Usage: /remind <when> <message>" in bot.last_text(chat_id=GROUP)


def test_free_text_without_an_llm_says_what_the_bot_can_do(bot: BotHarness) -> None:
    bot.send(message_update("what can you do for me?", chat_id=ALICE))

    reply = bot.last_text(chat_id=ALICE)
    assert "none is configured" in reply and "/task [--plan] <project> <description>" in reply
