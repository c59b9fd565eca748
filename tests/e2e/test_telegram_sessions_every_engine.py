"""End to end: /session from Telegram on Codex and Gemini, relayed turn by turn through the topic.

`itachi up`'s stack in this process with its real agent subprocess; the engines are the fake
Codex and Gemini CLIs printing each CLI's stream format (one process per turn, resuming the
session id of the first turn's init line); Telegram is the fake Bot API and every update
arrives on the webhook as Telegram would post it.
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from infra.local.stack import LocalStack, StackOptions
from tests.fakes.fake_telegram import FakeTelegram
from tests.support.agent_harness import fake_engine_env, make_repo
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import ALICE, GROUP, SECRET, callback_update, message_update


def post_update(api_url: str, update: dict[str, object]) -> int:
    request = urllib.request.Request(f"{api_url}/telegram/webhook", data=json.dumps(update).encode(),
                                     method="POST", headers={"Content-Type": "application/json",
                                                             "X-Telegram-Bot-Api-Secret-Token": SECRET})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


def press(api_url: str, fake: FakeTelegram, label: str) -> None:
    picker = wait_for(lambda: [m for m in fake.sent_messages(GROUP) if m.get("reply_markup")],
                      what="the picker")[-1]
    markup = picker["reply_markup"]
    rows = (json.loads(markup) if isinstance(markup, str) else markup)["inline_keyboard"]
    (data,) = [b["callback_data"] for row in rows for b in row if b["text"] == label]
    assert post_update(api_url, callback_update(data, picker)) == 200


@pytest.mark.parametrize(("label", "engine", "resumed"), [("itachic --ds", "codex", "fake-thread"),
                                                          ("itachig --ds", "gemini", "fake-session")])
def test_a_session_on_codex_or_gemini_is_relayed_through_its_topic_and_closes(
        tmp_path: Path, database_url: str, label: str, engine: str, resumed: str) -> None:
    repo = make_repo(tmp_path / "myproject")
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True)
    engine_log = tmp_path / "engine.log"
    with FakeTelegram(forums=(GROUP,)) as fake:
        env = {**os.environ, **fake_engine_env(engine_log), "ITACHI_HOME": str(home),
               "TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.base_url,
               "TELEGRAM_ALLOWED_USERS": str(ALICE), "TELEGRAM_CHAT_ID": str(GROUP),
               "TELEGRAM_WEBHOOK_SECRET": SECRET, "ITACHI_MACHINE_ID": "laptop",
               "ITACHI_AGENT_REPOS": f"myproject={repo}", "ITACHI_ENGINE_PRIORITY": "claude,codex,gemini",
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

            command = message_update("/session laptop myproject: show me git status")
            assert post_update(api_url, command) == 200
            press(api_url, fake, label)
            (thread,) = wait_for(lambda: [t for (c, t) in fake.topics if c == GROUP], what="its topic")

            def story() -> str:
                return "\n".join(fake.sent_texts(GROUP, thread))

            wait_for(lambda: "Working on: show me git status" in story(), timeout_s=60, what="answer 1")
            assert post_update(api_url, message_update("now run the tests", thread_id=thread)) == 200
            wait_for(lambda: "Working on: now run the tests" in story(), timeout_s=60, what="answer 2")
            assert post_update(api_url, message_update("/close", thread_id=thread)) == 200
            (session,) = container.agent_sessions.list_sessions()
            ended = wait_for(lambda: (s := container.agent_sessions.get(session.id)).status.value == "closed"
                             and s, timeout_s=60, what="the agent's end report")
            wait_for(lambda: "🛑 Session closed." in story(), timeout_s=30, what="the closing line")
        finally:
            stack.stop()

    assert (session.engine, session.project, session.telegram_topic_id) == (engine, "myproject", thread)
    assert ended.exit_code == 0
    whole = story()
    assert whole.startswith(f"💬 Session on laptop ({label})\nshow me git status")
    assert f"Resumed {resumed}" in whole
    assert whole.index("Working on: show me git status") < whole.index("Working on: now run the tests")
    assert fake.topics[(GROUP, thread)]["closed"] is True
    starts: list[dict[str, Any]] = [json.loads(line) for line in engine_log.read_text().splitlines()
                                    if json.loads(line)["event"] == "start"]
    assert [(s["engine"], s["prompt"], s["resume"], s["cwd"]) for s in starts] == [
        (engine, "show me git status", None, str(repo)), (engine, "now run the tests", resumed, str(repo))]
