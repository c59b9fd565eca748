"""/spawn and /agents through the real PTB client against the fake Bot API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.telegram_bot import GROUP, BotHarness, bot_harness, message_update


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        yield harness


def test_spawn_opens_a_topic_for_the_run_and_its_task_and_agents_lists_it(bot: BotHarness) -> None:
    bot.send(message_update("/spawn code-reviewer review the payment PR"))

    (thread,) = [t for (chat, t) in bot.fake.topics if chat == GROUP]
    (run,) = bot.container.agent_runs.search(status="active")
    task = bot.container.tasks.get(run.task_id or "")
    assert bot.fake.topics[(GROUP, thread)]["name"] == "code-reviewer: review the payment PR"
    assert (run.profile, run.prompt, run.telegram_topic_id) == (
        "code-reviewer",
        "review the payment PR",
        thread,
    )
    assert (task.telegram_chat_id, task.telegram_topic_id) == (GROUP, thread)
    assert task.engine_options["permission_mode"] == "plan"
    assert bot.last_text(chat_id=GROUP, thread_id=None).startswith(f"code-reviewer run {run.id[:8]} started.")

    bot.send(message_update("/agents"))
    listed = bot.last_text(chat_id=GROUP, thread_id=None)
    bot.send(message_update("/cancel", thread_id=thread))
    bot.send(message_update("/spawn astrologer read the stars"))
    unknown = bot.last_text(chat_id=GROUP, thread_id=None)

    assert listed == f"Active subagent runs:\n{run.id[:8]} code-reviewer (user): review the payment PR"
    assert bot.container.tasks.get(task.id).status == "cancelled"
    assert "no agent profile 'astrologer'" in unknown
    assert len([t for (chat, t) in bot.fake.topics if chat == GROUP]) == 1  # no topic for a refusal


def test_agents_cron_lists_and_removes_jobs(bot: BotHarness) -> None:
    job = bot.container.agent_cron.add(
        schedule="0 9 * * mon", prompt="Read the httpx release notes", profile="researcher"
    )

    bot.send(message_update("/agents cron"))
    listed = bot.last_text(chat_id=GROUP, thread_id=None)
    bot.send(message_update(f"/agents cron rm {job.id[:8]}"))
    removed = bot.last_text(chat_id=GROUP, thread_id=None)

    assert listed.startswith("Cron jobs:\n") and "researcher `0 9 * * mon` next Mon" in listed
    assert "Read the httpx release notes" in listed
    assert removed == f"Cron job {job.id[:8]} removed." and bot.container.agent_cron.jobs() == []
