"""/deploy through the real python-telegram-bot client against the fake Bot API: refused without a
configured command; with one, a confirmation button first, then exactly one task on the
project's machine whose prompt is the command, announced in a topic of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.tasks.domain.machine_records import Heartbeat
from tests.support.telegram_bot import GROUP, BotHarness, bot_harness, callback_update, message_update


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        yield harness


def buttons(bot: BotHarness) -> tuple[dict[str, Any], list[dict[str, str]]]:
    (offer,) = [m for m in bot.fake.sent_messages(chat_id=GROUP) if m.get("reply_markup")]
    return offer, offer["reply_markup"]["inline_keyboard"][0]


def test_deploy_without_a_configured_command_is_refused_and_creates_nothing(bot: BotHarness) -> None:
    bot.send(message_update("/deploy acme/web"))

    assert bot.last_text(chat_id=GROUP) == ("No deploy command is configured for acme/web. "
                                            "Set one with /deploy set acme/web [@machine] <command>.")
    assert bot.container.tasks.list_tasks() == []
    assert not [m for m in bot.fake.sent_messages(chat_id=GROUP) if m.get("reply_markup")]


def test_deploy_asks_first_then_runs_the_command_as_one_task_on_the_projects_machine(bot: BotHarness) -> None:
    registry = bot.container.machine_registry
    registry.heartbeat(Heartbeat("builder", "online", "a-1", 0, 2, ("claude",), ("acme/web",), ()))
    registry.heartbeat(Heartbeat("other", "online", "a-2", 0, 2, ("claude",), ("acme/api",), ()))

    bot.send(message_update("/deploy set acme/web make deploy ENV=prod && ./notify.sh 'done'"))
    assert bot.last_text(chat_id=GROUP) == ("/deploy acme/web will run on a machine that has it:\n\n"
                                            "make deploy ENV=prod && ./notify.sh 'done'")
    bot.send(message_update("/deploy acme/web"))

    offer, (deploy, cancel) = buttons(bot)
    assert offer["text"] == ("🚀 Deploy acme/web on builder?\n\nmake deploy ENV=prod && ./notify.sh 'done'"
                             "\n\nThe output streams to the task's topic.")
    assert (deploy["text"], cancel["text"]) == ("🚀 Deploy", "✖️ Cancel")
    assert all(len(b["callback_data"].encode()) <= 64 for b in (deploy, cancel))
    assert bot.container.tasks.list_tasks() == []  # nothing runs before the tap

    bot.send(callback_update(deploy["callback_data"], offer))
    bot.send(callback_update(deploy["callback_data"], offer))  # a second tap creates nothing more

    (task,) = bot.container.tasks.list_tasks()
    assert task.project == "acme/web" and task.target_machine == "builder"
    assert task.description.endswith("\n\nmake deploy ENV=prod && ./notify.sh 'done'")
    assert "run exactly this command" in task.description
    assert task.telegram_topic_id is not None  # its output streams to the topic as any task's
    assert any(t.startswith("📋 acme/web\nDeploy acme/web: run exactly this command")
               for t in bot.fake.sent_texts(GROUP, task.telegram_topic_id))


def test_deploy_runs_on_the_machine_named_when_it_was_set_and_cancel_creates_nothing(bot: BotHarness) -> None:
    bot.send(message_update("/deploy set acme/web @prodbox ./deploy.sh"))
    bot.send(message_update("/deploy acme/web"))
    offer, (_deploy, cancel) = buttons(bot)
    assert offer["text"].startswith("🚀 Deploy acme/web on prodbox?")

    bot.send(callback_update(cancel["callback_data"], offer))

    assert bot.container.tasks.list_tasks() == []
    assert [c["text"] for c in bot.fake.calls_to("answerCallbackQuery")] == ["Cancelled."]


def test_a_deploy_command_holding_a_secret_is_refused(bot: BotHarness) -> None:
    secret = "sk-abcdef0123456789abcdef0123"
    bot.send(message_update(f"/deploy set acme/web curl -H 'Authorization: Bearer {secret}' x"))

    assert "looks like a secret" in bot.last_text(chat_id=GROUP)
    bot.send(message_update("/deploy acme/web"))
    assert bot.last_text(chat_id=GROUP).startswith("No deploy command is configured for acme/web.")
