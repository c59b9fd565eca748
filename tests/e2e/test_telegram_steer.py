"""End to end: a message in a running task's topic reaches its engine, steered or queued.

`itachi up`'s stack with its real agent running the fake engine; the updates arrive on the
webhook as Telegram posts them. Claude Code (the fake, reading its turns on stdin) takes a
steered message into the running turn; Codex runs one process per turn, so a message waits
for the turn's end and becomes a turn that resumes its session.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.agent_harness import make_repo
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP, message_update
from tests.support.telegram_stack import TelegramStack, telegram_stack


def engine_log(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "engine.log"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def run_until_steered(t: TelegramStack, tmp_path: Path, message: str, *, twice: bool = False) -> list[str]:
    """Start a slow task, write `message` in its topic once its engine works, return the topic's story."""
    t.post(message_update("/task myproject slow change [fake:sleep=6]"))
    thread = t.topic()
    wait_for(lambda: any(e["event"] in ("turn", "start") and "slow change" in (e.get("prompt") or "")
                         for e in engine_log(tmp_path)), timeout_s=60, what="the engine at work")
    update = message_update(message, thread_id=thread)
    t.post(update)
    if twice:  # Telegram delivers the same update again
        t.post(update)
    return wait_for(lambda: (texts := t.fake.sent_texts(GROUP, thread)) and "✅ Completed" in texts[-1]
                    and texts, timeout_s=90, what="the task's result in its topic")


def test_steer_in_a_running_claude_task_reaches_the_running_turn_once(
    tmp_path: Path, database_url: str,
) -> None:
    repo = make_repo(tmp_path / "myproject")
    with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}") as t:
        story = "\n".join(run_until_steered(t, tmp_path, "/steer also update the README", twice=True))
        (task,) = t.container.tasks.list_tasks()

    log = [e for e in engine_log(tmp_path) if e["task"] == task.id]
    assert [e["prompt"] for e in log if e["event"] == "steered"] == ["also update the README"]
    assert [e["event"] for e in log].count("start") == 1  # the same process, the same turn
    assert "📨 delivered into the running turn: also update the README" in story
    assert "steered: also update the README" in story  # the engine's answer for that turn
    messages = [e for e in t.container.tasks.events(task.id) if e.kind == "user_input"]
    assert [(e.text, e.data["mode"]) for e in messages] == [("also update the README", "steer")]


def test_text_in_a_running_codex_task_is_queued_and_resumes_its_session_after_the_turn(
    tmp_path: Path, database_url: str,
) -> None:
    repo = make_repo(tmp_path / "myproject")
    # Headless `codex exec` (approvals off): the turns are processes, each start logged with its resume.
    with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}",
                        ITACHI_ENGINE_PRIORITY="codex", ITACHI_APPROVALS="0") as t:
        story = "\n".join(run_until_steered(t, tmp_path, "then run the linter"))
        (task,) = t.container.tasks.list_tasks()

    starts = [e for e in engine_log(tmp_path) if e["task"] == task.id and e["event"] == "start"]
    assert [(s["engine"], s["resume"]) for s in starts] == [("codex", None), ("codex", "fake-thread")]
    assert starts[1]["prompt"] == "then run the linter"
    whole = [story.index("📨 queued for after this turn: then run the linter"),
             story.index("📨 sent as the next turn: then run the linter"), story.index("Resumed fake-thread")]
    assert whole == sorted(whole)


def test_in_queue_mode_text_in_a_running_claude_task_waits_for_the_next_turn(
    tmp_path: Path, database_url: str,
) -> None:
    repo = make_repo(tmp_path / "myproject")
    with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}",
                        TELEGRAM_TASK_TEXT="queue") as t:
        story = "\n".join(run_until_steered(t, tmp_path, "and add a changelog entry"))
        (task,) = t.container.tasks.list_tasks()

    log = [e for e in engine_log(tmp_path) if e["task"] == task.id]
    assert not [e for e in log if e["event"] == "steered"]
    assert [e["prompt"] for e in log if e["event"] == "turn"][1:] == ["and add a changelog entry"]
    assert [e["event"] for e in log].count("start") == 1  # the next turn of the same process
    assert "📨 queued for after this turn: and add a changelog entry" in story
    assert "📨 sent as the next turn: and add a changelog entry" in story
