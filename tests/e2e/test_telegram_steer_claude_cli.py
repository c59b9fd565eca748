"""End to end with the real Claude Code CLI: /steer reaches the model inside the running turn.

`itachi up`'s stack with its real agent running the pinned Claude Code CLI against the fake
model API. The task's first model turn runs a slow Bash command; the message sent with /steer
while it runs is written to the CLI's stdin as a stream-json user message, and Claude Code puts
it in its next request of the same turn (beside the tool's result) rather than in a turn of its
own. The agent closes stdin at the turn's `result` with nothing waiting, and the CLI ends.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.agent_harness import make_repo
from tests.support.claude_cli import claude_env, ensure_claude_cli
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP, message_update
from tests.support.telegram_stack import telegram_stack

pytestmark = pytest.mark.e2e
SLOW = "sleep 6"


def test_steer_reaches_the_real_claude_code_in_the_running_turn_beside_the_slow_tools_result(
    tmp_path: Path, database_url: str,
) -> None:
    repo = make_repo(tmp_path / "myproject")
    config = tmp_path / "claude-config"
    config.mkdir()
    script = [Reply.tool_use("Bash", {"command": SLOW, "description": "wait for the build"}),
              Reply.text("Waited; I will update the README too."), Reply.text("spare")]
    with FakeAnthropic(script) as model:
        cli = {k: v for k, v in claude_env(model.base_url, config).items() if k not in ("PATH", "HOME")}
        with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}",
                            ITACHI_ENGINE_CLAUDE_COMMAND=str(ensure_claude_cli()), **cli) as t:
            t.post(message_update("/task myproject run the slow build"))
            thread = t.topic()
            wait_for(lambda: model.remaining < len(script), timeout_s=90,
                     what="the model's first answer, asking for the slow command")
            t.post(message_update("/steer also update the README", thread_id=thread))
            story = wait_for(lambda: (texts := t.fake.sent_texts(GROUP, thread))
                             and "✅ Completed" in texts[-1] and "\n".join(texts),
                             timeout_s=120, what="the task's result in its topic")
            (task,) = t.container.tasks.list_tasks()
            events = t.container.tasks.events(task.id)
        requests = model.conversation_requests()

    assert len(requests) == 2, [str(r.body.get("messages"))[-300:] for r in requests]
    first, second = (str(r.body["messages"]) for r in requests)
    assert "also update the README" not in first
    assert "also update the README" in second and "tool_result" in second  # the same turn, after the tool
    assert "📨 delivered into the running turn: also update the README" in story
    starts = [e for e in events if e.kind == "engine_started"]
    assert len(starts) == 1  # one CLI process: no resumed turn was needed
    assert task.status.value == "completed"
