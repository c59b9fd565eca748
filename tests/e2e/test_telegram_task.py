"""End to end: /task from Telegram runs on the local agent and its topic tells the whole story.

`itachi up`'s stack in this process (Postgres, moto, the API, the SQS consumers) with its real
agent subprocess running the fake engine in a git worktree; Telegram is the fake Bot API, and
the update arrives on the webhook exactly as Telegram would post it.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.agent_harness import make_repo
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP, message_update
from tests.support.telegram_stack import telegram_stack


def test_a_task_from_telegram_runs_on_the_agent_and_streams_to_its_topic(
    tmp_path: Path, database_url: str,
) -> None:
    repo = make_repo(tmp_path / "myproject")
    with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}") as t:
        container, fake = t.container, t.fake
        t.post(message_update("/task myproject fix the login bug [fake:write=login_fix.txt]"))

        (thread,) = wait_for(lambda: [t for (c, t) in fake.topics if c == GROUP], what="the task's topic")
        story = wait_for(lambda: (texts := fake.sent_texts(GROUP, thread)) and "✅ Completed" in texts[-1]
                         and texts, timeout_s=90, what="the task's result in its topic")

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
    reply = [t for t in fake.sent_texts(GROUP) if t.startswith(f"Task {task.id[:8]} queued for")]
    assert reply and f"/{thread}" in reply[0]
