"""Tool approvals on Codex and Gemini, end to end: a /session started from Telegram runs the
engine in its JSON-RPC mode (`codex app-server`, `gemini --experimental-acp`; the fake CLI
speaks both), the engine asks before each command or write, and the question reaches the
session's topic with Approve / Deny / Allow for this session. Alice's presses come back on the
webhook; the agent answers the engine with the protocol's own decision.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.agent_harness import make_repo
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP, message_update
from tests.support.telegram_stack import telegram_stack

pytestmark = pytest.mark.e2e
ANSWERS = {"codex": ["decline", "accept", "acceptForSession", "accept", "decline"],
           "gemini": ["cancel", "proceed_once", "proceed_always", "proceed_once", "cancel"]}


def recorded(database_url: str) -> list[tuple[str, str, bool, str | None]]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT tool, status, always, decided_by FROM tool_approvals ORDER BY created_at")
        return [(r[0], r[1], r[2], r[3]) for r in rows.fetchall()]


@pytest.mark.parametrize(("label", "engine", "edit_tool", "shell_tool"),
                         [("itachic --ds", "codex", "apply_patch", "shell"),
                          ("itachig --ds", "gemini", "edit", "execute")])
def test_codex_and_gemini_ask_the_topic_before_commands_and_edits(
        tmp_path: Path, database_url: str, label: str, engine: str, edit_tool: str, shell_tool: str) -> None:
    repo = make_repo(tmp_path / "myproject")
    with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}",
                        ITACHI_ENGINE_PRIORITY="claude,codex,gemini", ITACHI_APPROVAL_TIMEOUT_S="8") as t:
        t.post(message_update("/session laptop myproject: [fake:run=touch denied.txt]"))
        t.press(label)
        thread = t.topic()

        def story() -> str:
            return "\n".join(t.fake.sent_texts(GROUP, thread))

        t.press_on("touch denied.txt", "✖️ Deny")
        wait_for(lambda: "declined: touch denied.txt" in story(), timeout_s=60, what="the denied command")
        t.post(message_update("[fake:run=touch approved.txt]", thread_id=thread))
        t.press_on("touch approved.txt", "✅ Approve")
        wait_for(lambda: "ran: touch approved.txt" in story(), timeout_s=60, what="the approved command")
        t.post(message_update("[fake:write=first.txt]", thread_id=thread))
        t.press_on("first.txt", "♾ Allow for this session")
        wait_for(lambda: "wrote: first.txt" in story(), timeout_s=60, what="the first write")
        t.post(message_update("[fake:write=second.txt]", thread_id=thread))
        wait_for(lambda: "wrote: second.txt" in story(), timeout_s=60, what="the second write, not asked")
        t.post(message_update("[fake:run=touch late.txt]", thread_id=thread))
        wait_for(lambda: "declined: touch late.txt" in story(), timeout_s=60, what="no answer in time")
        asked = [m for m in t.fake.sent_messages(GROUP, thread) if str(m.get("text")).startswith("🔐")]

    assert not (repo / "denied.txt").exists() and not (repo / "late.txt").exists()
    assert all((repo / name).exists() for name in ("approved.txt", "first.txt", "second.txt"))
    lines = (tmp_path / "engine.log").read_text().splitlines()
    logged: list[dict[str, Any]] = [json.loads(line) for line in lines]
    assert [e["answer"] for e in logged if e["event"] == "asked"] == ANSWERS[engine]
    modes = {e["mode"] for e in logged if e["event"] == "start"}
    assert modes == {"app-server" if engine == "codex" else "acp"}
    assert len(asked) == 4  # the second write was allowed by the session's grant, without asking
    assert [(tool, status, always) for tool, status, always, _ in recorded(database_url)] == [
        (shell_tool, "denied", False), (shell_tool, "allowed", False), (edit_tool, "allowed", True),
        (edit_tool, "allowed", False), (shell_tool, "expired", False)]
