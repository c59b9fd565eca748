"""End to end: /session from Telegram on Codex and Gemini, relayed turn by turn through the topic.

`itachi up`'s stack in this process with its real agent subprocess; the engines are the fake
Codex and Gemini CLIs printing each CLI's stream format (one process per turn, resuming the
session id of the first turn's init line); Telegram is the fake Bot API and every update
arrives on the webhook as Telegram would post it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.agent_harness import make_repo
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP, message_update
from tests.support.telegram_stack import telegram_stack


@pytest.mark.parametrize(("label", "engine", "resumed"), [("itachic --ds", "codex", "fake-thread"),
                                                          ("itachig --ds", "gemini", "fake-session")])
def test_a_session_on_codex_or_gemini_is_relayed_through_its_topic_and_closes(
        tmp_path: Path, database_url: str, label: str, engine: str, resumed: str) -> None:
    repo = make_repo(tmp_path / "myproject")
    with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}",
                        ITACHI_ENGINE_PRIORITY="claude,codex,gemini") as t:
        t.post(message_update("/session laptop myproject: show me git status"))
        t.press(label)
        thread = t.topic()

        def story() -> str:
            return "\n".join(t.fake.sent_texts(GROUP, thread))

        wait_for(lambda: "Working on: show me git status" in story(), timeout_s=60, what="answer 1")
        t.post(message_update("now run the tests", thread_id=thread))
        wait_for(lambda: "Working on: now run the tests" in story(), timeout_s=60, what="answer 2")
        t.post(message_update("/close", thread_id=thread))
        (session,) = t.container.agent_sessions.list_sessions()
        ended = wait_for(lambda: (s := t.container.agent_sessions.get(session.id)).status.value == "closed"
                         and s, timeout_s=60, what="the agent's end report")
        wait_for(lambda: "🛑 Session closed." in story(), timeout_s=30, what="the closing line")
        topic = t.fake.topics[(GROUP, thread)]

    assert (session.engine, session.project, session.telegram_topic_id) == (engine, "myproject", thread)
    assert ended.exit_code == 0
    whole = story()
    assert whole.startswith(f"💬 Session on laptop ({label})\nshow me git status")
    assert f"Resumed {resumed}" in whole
    assert whole.index("Working on: show me git status") < whole.index("Working on: now run the tests")
    assert topic["closed"] is True
    lines = (tmp_path / "engine.log").read_text().splitlines()
    logged: list[dict[str, Any]] = [json.loads(line) for line in lines]
    starts = [s for s in logged if s["event"] == "start"]
    assert [(s["engine"], s["prompt"], s["resume"], s["cwd"]) for s in starts] == [
        (engine, "show me git status", None, str(repo)), (engine, "now run the tests", resumed, str(repo))]
