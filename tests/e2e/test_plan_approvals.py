"""Claude's plan mode from Telegram, end to end with the real Claude Code CLI: `/task --plan` and
`/session --plan` run Claude in plan mode; its ExitPlanMode plan reaches the topic with Approve plan / Revise.
Revise and the next message in the topic send the plan back with that message (Claude stays in
plan mode, so its edit is refused); Approve plan lets it leave plan mode and its edit lands.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.agent_harness import make_repo
from tests.support.claude_cli import claude_env, ensure_claude_cli
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP, message_update
from tests.support.telegram_stack import TelegramStack, telegram_stack

pytestmark = pytest.mark.e2e
REVISION = "Please write notes.md instead of plan.txt"


def plan_approvals(database_url: str) -> list[tuple[str, bool, str | None]]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT status, revising, reason FROM tool_approvals WHERE tool = 'ExitPlanMode'"
                            " ORDER BY created_at").fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def script() -> list[Reply]:
    """Claude plans, edits too early, plans again as asked, then edits once the plan is approved."""
    return [Reply.tool_use("ExitPlanMode", {"plan": "PLAN-ONE: write plan.txt"}),
            Reply.tool_use("Write", {"file_path": "plan.txt", "content": "too early\n"}),
            Reply.tool_use("ExitPlanMode", {"plan": "PLAN-TWO: write notes.md"}),
            Reply.tool_use("Write", {"file_path": "notes.md", "content": "planned and approved\n"}),
            Reply.text("Wrote notes.md.")]

@contextmanager
def plan_stack(tmp_path: Path, database_url: str) -> Iterator[tuple[Path, FakeAnthropic, TelegramStack]]:
    """A repository, the fake model playing `script()` and the Telegram stack running the real CLI."""
    repo = make_repo(tmp_path / "myproject")
    config = tmp_path / "claude-config"
    config.mkdir()
    with FakeAnthropic(script()) as model:
        cli_env = {k: v for k, v in claude_env(model.base_url, config).items() if k not in ("PATH", "HOME")}
        with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}",
                            ITACHI_ENGINE_CLAUDE_COMMAND=str(ensure_claude_cli()), **cli_env) as t:
            yield repo, model, t


def revise_then_approve(t: TelegramStack, database_url: str) -> int:
    """Send the first plan back with REVISION, approve the second; the topic's thread."""
    thread = t.topic()
    t.press_on("PLAN-ONE", "✏️ Revise", timeout_s=90)
    wait_for(lambda: plan_approvals(database_url) == [("pending", True, None)], timeout_s=30,
             what="the plan waiting for its revision")
    t.post(message_update(REVISION, thread_id=thread))
    t.press_on("PLAN-TWO", "✅ Approve plan", timeout_s=90)
    return thread


def topic_plans(t: TelegramStack, thread: int) -> list[str]:
    """The plan messages of the topic, as last edited."""
    return [str(m.get("text")) for (chat, _), m in sorted(t.fake.messages.items())
            if chat == GROUP and m.get("message_thread_id") == thread and "PLAN-" in str(m.get("text"))]


def test_a_plan_sent_back_to_revise_edits_nothing_and_an_approved_plan_edits(
    tmp_path: Path, database_url: str,
) -> None:
    with plan_stack(tmp_path, database_url) as (_repo, model, t):
        t.post(message_update("/task --plan myproject add the notes"))
        thread = revise_then_approve(t, database_url)
        story = wait_for(lambda: (texts := t.fake.sent_texts(GROUP, thread))
                         and "✅ Completed" in texts[-1] and texts,
                         timeout_s=90, what="the task's result in its topic")
        (task,) = t.container.tasks.list_tasks()
        requests = [json.dumps(r.body["messages"]) for r in model.conversation_requests()]

    worktree = Path(str(task.worktree))
    assert not (worktree / "plan.txt").exists()
    assert (worktree / "notes.md").read_text() == "planned and approved\n"
    assert REVISION not in requests[0] and REVISION in requests[1]  # the answer to the first plan
    assert "plan is not approved yet" in requests[2]  # the early Write, refused in plan mode
    assert plan_approvals(database_url) == [("denied", False, REVISION), ("allowed", False, None)]
    plans = topic_plans(t, thread)
    assert [p.split("\n")[0] for p in plans] == ["✏️ Sent back to revise by telegram:alice_dev",
                                                 "✅ Plan approved by telegram:alice_dev"]
    assert REVISION in plans[0] and "PLAN-ONE" in plans[0] and "PLAN-TWO" in plans[1]
    assert "✏️ Sent back to Claude to revise the plan." in story


def test_a_plan_mode_session_revises_its_plan_once_then_edits_once_it_is_approved(
    tmp_path: Path, database_url: str,
) -> None:
    with plan_stack(tmp_path, database_url) as (repo, model, t):
        t.post(message_update("/session --plan laptop myproject: add the notes"))
        thread = revise_then_approve(t, database_url)
        wait_for(lambda: "Wrote notes.md." in "\n".join(t.fake.sent_texts(GROUP, thread)), timeout_s=90,
                 what="the session's answer in its topic")
        t.post(message_update("/close", thread_id=thread))
        (session,) = t.container.agent_sessions.list_sessions()
        wait_for(lambda: t.container.agent_sessions.get(session.id).status.value == "closed",
                 timeout_s=60, what="the agent's end report")
        story = t.fake.sent_texts(GROUP, thread)
        requests = [json.dumps(r.body["messages"]) for r in model.conversation_requests()]

    assert (session.engine, session.permission_mode, session.project) == ("claude", "plan", "myproject")
    assert story[0].startswith("💬 Session on laptop (itachi --plan)\nadd the notes")
    assert not (repo / "plan.txt").exists()
    assert (repo / "notes.md").read_text() == "planned and approved\n"
    assert REVISION not in requests[0] and REVISION in requests[1]
    assert "plan is not approved yet" in requests[2]
    assert plan_approvals(database_url) == [("denied", False, REVISION), ("allowed", False, None)]
    assert [p.split("\n")[0] for p in topic_plans(t, thread)] == [
        "✏️ Sent back to revise by telegram:alice_dev", "✅ Plan approved by telegram:alice_dev"]
    assert "✏️ Sent back to Claude to revise the plan." in story
