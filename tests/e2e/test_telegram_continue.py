"""End to end: /continue picks up a terminal session of Claude Code, Codex or Gemini CLI in a topic.

`itachi up`'s stack in this process with its real agent subprocess; each engine's session
store is written where that CLI keeps it under the agent's own HOME; the engines are the fake
CLIs (which say which session they resume); Telegram is the fake Bot API and every update
arrives on the webhook. The agent lists the folder's sessions newest first, the button starts
an Itachi session that continues the chosen engine session, and the topic names the terminal
command that resumes it back.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.agent_harness import make_repo
from tests.support.orchestration import wait_for
from tests.support.session_stores import claude_session, codex_session, gemini_session
from tests.support.telegram_bot import GROUP, message_update
from tests.support.telegram_stack import telegram_stack

IDS = {"claude": "5b1e0a3c-1111-4000-8000-00000000c1a0", "codex": "0199a1b2-2222-7000-8000-00000000c0de",
       "gemini": "9f8e7d6c-3333-4000-8000-00000000fe11"}
TERMINAL = {"claude": "claude --resume", "codex": "codex resume", "gemini": "gemini --resume"}
WRITERS = {"claude": claude_session, "codex": codex_session, "gemini": gemini_session}


@pytest.mark.parametrize("engine", ["claude", "codex", "gemini"])
def test_a_terminal_session_chosen_in_telegram_is_continued_in_a_new_topic(
        tmp_path: Path, database_url: str, engine: str) -> None:
    repo = make_repo(tmp_path / "myproject").resolve()
    home = tmp_path / "userhome"
    now = time.time()
    for age, name in enumerate(sorted(WRITERS, key=lambda n: n != engine)):  # the chosen engine's newest
        WRITERS[name](home, repo, IDS[name], [f"{name}: start the refactor", f"{name}: now the tests"],
                      mtime=now - 60 * (age + 1))
    claude_session(home, tmp_path, "elsewhere-not-listed", ["outside the folder"], mtime=now)
    with telegram_stack(tmp_path, database_url, HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
                        CODEX_HOME=str(home / ".codex"), ITACHI_AGENT_REPOS=f"myproject={repo}",
                        ITACHI_ENGINE_PRIORITY="claude,codex,gemini") as t:
        t.post(message_update(f"/continue laptop {repo}"))
        listing = wait_for(lambda: next((m for m in t.fake.sent_texts(GROUP) if "newest first" in m), None),
                           timeout_s=60, what="the listing")
        t.press(f"1. {engine} {IDS[engine][:8]}")
        thread = t.topic()

        def story() -> str:
            return "\n".join(t.fake.sent_texts(GROUP, thread))

        wait_for(lambda: "Continuing" in story(), timeout_s=30, what="the topic's header")
        t.post(message_update("carry on", thread_id=thread))
        answer = "echo: carry on" if engine == "claude" else "Working on: carry on"
        wait_for(lambda: answer in story(), timeout_s=60, what="the continued session's answer")
        (session,) = t.container.agent_sessions.list_sessions()

    order = sorted(IDS, key=lambda n: listing.index(f"first: {n}: start the refactor"))
    assert order[0] == engine
    assert "elsewhere-not-listed" not in listing and f"{engine}: now the tests" in listing
    assert (session.engine, session.resume_id, session.repo, session.telegram_topic_id) == (
        engine, IDS[engine], str(repo), thread)
    assert f"{TERMINAL[engine]} {IDS[engine]}" in story()
    starts = [e for e in map(json.loads, (tmp_path / "engine.log").read_text().splitlines())
              if e["event"] == "start"]
    assert [(s["engine"], s["resume"], s["cwd"]) for s in starts] == [(engine, IDS[engine], str(repo))]
    if engine == "claude":
        turns: list[dict[str, Any]] = [e for e in map(json.loads, (tmp_path / "engine.log").read_text()
                                                      .splitlines()) if e["event"] == "turn"]
        assert [t["prompt"] for t in turns] == ["carry on"]
    else:
        assert [s["prompt"] for s in starts] == ["carry on"]
