"""End to end: a chat user's cost caps, through the fake Bot API, the stack and its real agent.

The scripted engine reports a model response costing $0.40 every 0.2 s (`[fake:spend=0.4]`);
the agent prices each as it streams and stops the engine once the task passes its cap. The
topic says which cap stopped it and the spend; a task asked for once the day's cap is spent is
refused, and /budget shows and sets the caps.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.agent_harness import make_repo
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import ALICE, GROUP, message_update
from tests.support.telegram_stack import TelegramStack, telegram_stack


def said(t: TelegramStack, needle: str, thread: int | None = None) -> str:
    """The bot's first message to the group (or a topic of it) that contains `needle`."""
    return str(wait_for(lambda: next((m for m in t.fake.sent_texts(GROUP, thread) if needle in m), None),
                        timeout_s=60, what=f"a message with {needle!r}"))


def line_with(story: list[str], needle: str) -> str:
    """The one line of a topic's messages (batched progress lines) that contains `needle`."""
    (line,) = [line for message in story for line in message.splitlines() if needle in line]
    return line


def run_to_its_end(t: TelegramStack, text: str) -> tuple[int, list[str]]:
    """Post /task `text`; wait for its topic's closing message; return the topic and what it said."""
    before = set(t.fake.topics)
    t.post(message_update(f"/task myproject {text}"))
    (thread,) = wait_for(lambda: [th for (c, th) in t.fake.topics if c == GROUP and (c, th) not in before],
                         timeout_s=30, what="the task's topic")
    story = wait_for(lambda: (texts := t.fake.sent_texts(GROUP, thread)) and "⏱ Timed out" in texts[-1]
                     and texts, timeout_s=90, what="the task stopped in its topic")
    return thread, story


def test_a_task_stops_at_its_cap_the_day_cap_refuses_more_and_budget_shows_and_sets_them(
    tmp_path: Path, database_url: str,
) -> None:
    repo = make_repo(tmp_path / "myproject")
    with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}",
                        ITACHI_TASK_COST_CAP_USD="5", ITACHI_DAILY_COST_CAP_USD="25") as t:
        t.post(message_update("/budget"))
        assert said(t, "today (UTC)").startswith(
            "You spent $0.00 today (UTC); daily cap: $25.00 ($25.00 left) (default).\n"
            "Task cap: $5.00 (default) per task.")
        t.post(message_update("/budget task 1"))
        assert "Task cap: $1.00 per task." in said(t, "Task cap set to $1.00.")
        t.post(message_update("/budget daily 1.50"))
        said(t, "Daily cap set to $1.50.")
        t.post(message_update("/budget daily 100 4242"))  # another user's: only an admin may
        said(t, "Only an admin (TELEGRAM_ADMIN_USERS) may set another user's caps.")

        _, first = run_to_its_end(t, "spend freely [fake:spend=0.4]")
        assert line_with(first, "cap of").startswith("• Task cap of $1.00 reached: stopped with $1.2")

        _, second = run_to_its_end(t, "spend again [fake:spend=0.4]")
        stop = line_with(second, "cap of")
        assert stop.startswith("• Daily cap of $1.50 reached: stopped with $0.4")
        assert "($0.30 was left of today's cap)" in stop

        topics = set(t.fake.topics)
        t.post(message_update("/task myproject one more thing"))
        refusal = said(t, "daily cap of $1.50 is spent")
        assert refusal.startswith("Your daily cap of $1.50 is spent ($1.6") and "not created" in refusal
        t.post(message_update("/budget"))
        status = said(t, "You spent $1.6")
        assert "daily cap: $1.50 ($0.00 left)." in status and "Task cap: $1.00 per task." in status

        tasks = sorted(t.container.tasks.list_tasks(), key=lambda task: task.created_at or 0)
        assert [task.status for task in tasks] == ["timed_out", "timed_out"]  # the third was never made
        assert set(t.fake.topics) == topics  # nor did it open a topic
        spent = [t.container.task_budgets.task_spent(task.id) for task in tasks]
        assert 1.2 <= spent[0] < 1.25 and 0.4 <= spent[1] < 0.45
        assert t.container.task_budgets.status(ALICE).spent_today == sum(spent)
