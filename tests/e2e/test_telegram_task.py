"""End to end: /task from Telegram runs on the local agent and its topic tells the whole story.

`itachi up`'s stack in this process (Postgres, moto, the API, the SQS consumers) with its real
agent subprocess running the fake engine in a git worktree; Telegram is the fake Bot API, and
the update arrives on the webhook exactly as Telegram would post it.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from infra.local.stack import LocalStack, StackOptions
from tests.fakes.fake_telegram import FakeTelegram
from tests.support.agent_harness import fake_engine_env, make_repo
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import ALICE, GROUP, SECRET, message_update


def post_update(api_url: str, update: dict[str, object]) -> int:
    request = urllib.request.Request(f"{api_url}/telegram/webhook", data=json.dumps(update).encode(),
                                     method="POST", headers={"Content-Type": "application/json",
                                                             "X-Telegram-Bot-Api-Secret-Token": SECRET})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


def test_a_task_from_telegram_runs_on_the_agent_and_streams_to_its_topic(
    tmp_path: Path, database_url: str,
) -> None:
    import os

    repo = make_repo(tmp_path / "myproject")
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True)  # as `itachi up` does before starting the stack
    with FakeTelegram(forums=(GROUP,)) as fake:
        env = {**os.environ, **fake_engine_env(tmp_path / "engine.log"), "ITACHI_HOME": str(home),
               "TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.base_url,
               "TELEGRAM_ALLOWED_USERS": str(ALICE), "TELEGRAM_CHAT_ID": str(GROUP),
               "TELEGRAM_WEBHOOK_SECRET": SECRET, "ITACHI_MACHINE_ID": "laptop",
               "ITACHI_AGENT_REPOS": f"myproject={repo}", "ITACHI_ENGINE_PRIORITY": "claude",
               "ITACHI_AGENT_POLL_S": "1", "ITACHI_AGENT_HEARTBEAT_S": "1"}
        options = StackOptions(home=home, port=0, database_url=database_url, with_agent=True, env=env)
        stack = LocalStack(options, say=lambda line: None)
        api_url = stack.start()
        try:
            container = stack.container
            assert container is not None
            wait_for(lambda: any(m["id"] == "laptop" and m["status"] == "online"
                                 for m in container.machine_registry.list_machines()),
                     timeout_s=60, what="the local agent online")

            assert post_update(api_url, message_update(
                "/task myproject fix the login bug [fake:write=login_fix.txt]")) == 200

            (thread,) = wait_for(lambda: [t for (c, t) in fake.topics if c == GROUP], what="the task's topic")
            story = wait_for(lambda: (texts := fake.sent_texts(GROUP, thread)) and "✅ Completed" in texts[-1]
                             and texts, timeout_s=90, what="the task's result in its topic")
        finally:
            stack.stop()

    (task,) = [t for t in container.tasks.list_tasks()]
    assert task.status == "completed"
    whole = "\n".join(story)
    order = ["📋 myproject", f"Task {task.id[:8]} queued.", "• sent to laptop", "▶️ attempt 1 on laptop",
             "Working on:", "🔧 Write login_fix.txt\n", "✅ Completed"]
    assert [whole.index(marker) for marker in order] == sorted(whole.index(marker) for marker in order)
    assert "login_fix.txt" in story[-1]  # the result lists the files changed
    assert fake.topics[(GROUP, thread)]["closed"] is True
    assert fake.topics[(GROUP, thread)]["name"] == (
        "✅ myproject: fix the login bug [fake:write=login_fix.txt]")
    reply = [t for t in fake.sent_texts(GROUP) if t.startswith(f"Task {task.id[:8]} queued")]
    assert reply and f"/{thread}" in reply[0]
