"""Tool approvals from Telegram, end to end: the real Claude Code CLI with Itachi's hooks asks
before a Bash call; the request reaches the fake Bot API through the real python-telegram-bot
library; Alice's press comes back on the webhook. Deny stops the tool, Approve runs it, no
answer in time denies, and every decision is recorded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.e2e.test_claude_code_memory import REMOTE, claude, hook_env  # noqa: F401  (fixture)
from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.claude_cli import run_print
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP, callback_update
from tests.support.telegram_stack import TelegramStack, telegram_stack

pytestmark = pytest.mark.e2e


def hooked_repo(tmp_path: Path) -> Path:
    path = tmp_path / "approvals-repo"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=30)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", REMOTE], check=True, timeout=30)
    itachi = Path(sys.executable).parent / "itachi"
    done = subprocess.run([str(itachi), "install-hooks", "--scope", "project", "--no-mcp"], cwd=path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return path


def press_when_asked(t: TelegramStack, marker: str, label: str) -> threading.Thread:
    """In the background: wait for the approval request naming `marker`, then press `label`."""
    def run() -> None:
        (message,) = wait_for(lambda: [m for m in t.fake.sent_messages(GROUP)
                                       if marker in str(m.get("text")) and m.get("reply_markup")],
                              timeout_s=60, what=f"the approval request for {marker}")
        markup: Any = message["reply_markup"]
        rows = (json.loads(markup) if isinstance(markup, str) else markup)["inline_keyboard"]
        (data,) = [b["callback_data"] for row in rows for b in row if b["text"] == label]
        t.post(callback_update(data, message))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def recorded(database_url: str) -> list[tuple[str, str, str | None]]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT tool, status, decided_by FROM tool_approvals"
                            " ORDER BY created_at").fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def test_deny_stops_the_tool_approve_runs_it_and_no_answer_in_time_denies(
    claude: Path, tmp_path: Path, database_url: str  # noqa: F811
) -> None:
    repo = hooked_repo(tmp_path)
    with telegram_stack(tmp_path, database_url) as t:
        home = tmp_path / "home"
        outcomes = {}
        for name, label in (("denied", "✖️ Deny"), ("approved", "✅ Approve"), ("unanswered", None)):
            marker = f"touch {name}.txt"
            script = [Reply.tool_use("Bash", {"command": marker, "description": f"Create {name}.txt"}),
                      Reply.text(f"Done with {name}.")]
            with FakeAnthropic(script) as model:
                env = hook_env(model, tmp_path / "claude-config", home, "", "")
                del env["ITACHI_API_URL"], env["ITACHI_API_KEY"]  # the stack's config.json has them
                wait = "4" if label is None else "90"
                env.update({"ITACHI_APPROVALS": "1", "ITACHI_APPROVAL_TIMEOUT_S": wait})
                presser = press_when_asked(t, marker, label) if label else None
                run = run_print(claude, f"Please create {name}.txt.", cwd=repo, env=env, timeout=150)
                tool_result = json.dumps(model.conversation_requests()[-1].body["messages"][-3:])
            if presser is not None:
                presser.join(timeout=5)
            assert run.returncode == 0, run.stderr
            outcomes[name] = ((repo / f"{name}.txt").exists(), tool_result)
        messages = [str(m.get("text")) for m in t.fake.sent_messages(GROUP)]

    assert outcomes["denied"][0] is False and "Denied in Telegram" in outcomes["denied"][1]
    assert outcomes["approved"][0] is True
    assert outcomes["unanswered"][0] is False and "No approval in time" in outcomes["unanswered"][1]
    decisions = recorded(database_url)
    assert [(tool, status) for tool, status, _ in decisions] == [
        ("Bash", "denied"), ("Bash", "allowed"), ("Bash", "expired")]
    assert decisions[0][2] is not None and decisions[0][2].startswith("telegram:")
    assert any(m.startswith("🔐 Tool approval") and "touch denied.txt" in m for m in messages)
