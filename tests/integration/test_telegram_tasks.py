"""/task, /cancel, /status, /machines, /repos and /engines through the real PTB client."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.tasks.domain.machine_records import Heartbeat
from tests.support.telegram_bot import GROUP, BotHarness, bot_harness, message_update


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        yield harness


def _online(bot: BotHarness, machine_id: str = "laptop") -> None:
    bot.container.machine_registry.heartbeat(Heartbeat(
        machine_id=machine_id, status="online", agent_instance=f"i-{machine_id}", active_tasks=0,
        max_concurrent=2, engine_priority=("claude", "codex"), projects=("myproject",),
        repos=("git@github.com:alice/myproject.git",)))


def _task_topic(bot: BotHarness) -> int:
    (topic,) = [thread for (chat, thread) in bot.fake.topics if chat == GROUP]
    return topic


def test_task_opens_a_topic_queues_the_task_and_starts_its_story(bot: BotHarness) -> None:
    bot.send(message_update("/task myproject fix the login bug"))

    thread = _task_topic(bot)
    assert bot.fake.topics[(GROUP, thread)]["name"] == "myproject: fix the login bug"
    (task,) = bot.container.tasks.list_tasks()
    assert (task.project, task.description) == ("myproject", "fix the login bug")
    assert (task.telegram_chat_id, task.telegram_topic_id) == (GROUP, thread)
    reply = bot.last_text(chat_id=GROUP, thread_id=None)
    assert re.fullmatch(rf"Task {task.id[:8]} queued for myproject\. Progress: https://t\.me/c/1234567890/{thread}",
                        reply)

    bot.flush()

    assert bot.texts(chat_id=GROUP, thread_id=thread) == [
        "📋 myproject\nfix the login bug\n\nProgress streams here; /cancel stops it.",
        f"Task {task.id[:8]} queued."]


def test_cancel_in_a_task_topic_cancels_it_and_closes_the_story(bot: BotHarness) -> None:
    bot.send(message_update("/task myproject fix the login bug"))
    thread = _task_topic(bot)

    bot.send(message_update("/cancel", thread_id=thread))
    bot.flush()

    (task,) = bot.container.tasks.list_tasks()
    assert task.status == "cancelled"
    texts = bot.texts(chat_id=GROUP, thread_id=thread)
    assert texts[0].startswith("📋 myproject")
    assert texts[1:] == [f"Task {task.id[:8]} cancelled.", f"Task {task.id[:8]} queued.\n🛑 Cancelled"]
    topic = bot.fake.topics[(GROUP, thread)]
    assert topic["closed"] is True and topic["name"] == "🛑 myproject: fix the login bug"


def test_cancel_by_id_prefix_from_anywhere(bot: BotHarness) -> None:
    bot.send(message_update("/task myproject fix the login bug"))
    (task,) = bot.container.tasks.list_tasks()

    bot.send(message_update(f"/cancel {task.id[:8]}"))

    assert bot.last_text(chat_id=GROUP, thread_id=None) == f"Task {task.id[:8]} cancelled."


def test_cancel_of_an_unknown_task_says_so(bot: BotHarness) -> None:
    bot.send(message_update("/cancel abcdef12"))

    assert bot.last_text(chat_id=GROUP) == "no task 'abcdef12'"


def test_status_shows_the_queue_and_machine_health(bot: BotHarness) -> None:
    _online(bot)
    bot.send(message_update("/task myproject fix the login bug"))

    bot.send(message_update("/status"))

    text = bot.last_text(chat_id=GROUP, thread_id=None)
    assert "Tasks: 1 queued, 0 dispatched, 0 running" in text
    assert "Machines: 1 online of 1" in text
    assert "- laptop: online, 0/2 busy" in text


def test_machines_lists_each_machine_with_its_engines(bot: BotHarness) -> None:
    bot.send(message_update("/machines"))
    assert "No machine has registered yet" in bot.last_text(chat_id=GROUP)

    _online(bot)
    bot.send(message_update("/machines"))

    assert bot.last_text(chat_id=GROUP).startswith(
        "Machines:\n- laptop (online): 0/2 busy, engines claude, codex")


def test_repos_lists_the_projects_and_repos_machines_have(bot: BotHarness) -> None:
    _online(bot)

    bot.send(message_update("/repos"))

    text = bot.last_text(chat_id=GROUP)
    assert "- myproject: laptop" in text
    assert "- git@github.com:alice/myproject.git: laptop" in text


def test_engines_shows_the_order_and_refuses_an_unknown_machine(bot: BotHarness) -> None:
    _online(bot)

    bot.send(message_update("/engines"))
    assert bot.last_text(chat_id=GROUP) == "Engine order:\n- laptop: claude > codex"

    bot.send(message_update("/engines desktop codex,claude"))
    assert bot.last_text(chat_id=GROUP) == "No machine named desktop."

    bot.send(message_update("/engines laptop claude,cursor"))
    assert bot.last_text(chat_id=GROUP).startswith("Engines are claude, codex, gemini")


def test_engines_sets_the_order_the_machines_agent_adopts(bot: BotHarness) -> None:
    _online(bot)

    bot.send(message_update("/engines laptop codex,claude"))

    # stored on the server (tests/integration/ops/test_machine_controls.py follows it to the agent)
    assert "laptop will try codex > claude" in bot.last_text(chat_id=GROUP)


def test_a_header_refused_by_flood_control_goes_out_first_through_the_stream(bot: BotHarness) -> None:
    bot.fake.fail_next("sendMessage", retry_after=1)  # the header's direct send

    bot.send(message_update("/task myproject fix the login bug"))
    (task,) = bot.container.tasks.list_tasks()
    bot.container.task_event_publisher.published(task.id, [{"kind": "text", "text": "reading the code"}])
    bot.flush()

    (text,) = bot.texts(chat_id=GROUP, thread_id=_task_topic(bot))
    assert text.startswith("📋 myproject\nfix the login bug")
    assert text.endswith(f"\nTask {task.id[:8]} queued.\nreading the code")
