"""End to end: /deploy from Telegram asks first, then runs on the project's machine (the local
agent, with the fake engine) as a task whose output streams to its topic.

The fake engine runs no shell command; it acts on the `[fake:...]` directives of its prompt, so
a deploy command carrying one shows the command reached the engine's prompt verbatim.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.agent_harness import make_repo
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP, callback_update, message_update
from tests.support.telegram_stack import telegram_stack


def test_a_deploy_confirmed_in_telegram_runs_on_the_projects_machine_and_streams_to_its_topic(
    tmp_path: Path, database_url: str,
) -> None:
    repo = make_repo(tmp_path / "myproject")
    with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}") as t:
        container, fake = t.container, t.fake
        t.post(message_update("/deploy myproject"))
        refused = wait_for(lambda: [x for x in fake.sent_texts(GROUP) if x.startswith("No deploy command")],
                           what="the refusal")
        t.post(message_update("/deploy set myproject ./deploy.sh --prod [fake:write=deployed.txt]"))
        t.post(message_update("/deploy myproject"))
        (offer,) = wait_for(lambda: [m for m in fake.sent_messages(chat_id=GROUP) if m.get("reply_markup")],
                            what="the confirmation button")
        deploy = offer["reply_markup"]["inline_keyboard"][0][0]
        assert container.tasks.list_tasks() == []
        t.post(callback_update(deploy["callback_data"], offer))

        (thread,) = wait_for(lambda: [t for (c, t) in fake.topics if c == GROUP], what="the deploy's topic")
        story = wait_for(lambda: (texts := fake.sent_texts(GROUP, thread)) and "✅ Completed" in texts[-1]
                         and texts, timeout_s=90, what="the deploy's result in its topic")

    assert refused == ["No deploy command is configured for myproject. "
                       "Set one with /deploy set myproject [@machine] <command>."]
    assert offer["text"].startswith("🚀 Deploy myproject on laptop?")
    (task,) = container.tasks.list_tasks()
    assert task.status == "completed" and task.machine_id == "laptop"
    whole = "\n".join(story)
    assert "./deploy.sh --prod" in whole and "▶️ attempt 1 on laptop" in whole
    assert "deployed.txt" in story[-1]
