"""The brain loop end to end: observations in Postgres, the orient call on FakeOpenAI, proposals
with their buttons on FakeTelegram, and Approve / Reject pressed through the bot's handlers."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from chalicelib.brain.adapters.brain_actions import CapabilityActions
from chalicelib.brain.services.proposal_decisions import ProposalDecisions
from tests.integration.brain.conftest import Brain, fail_three_times
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP, callback_update, message_update


def press(brain: Brain, message: dict, button: int) -> None:
    data = message["reply_markup"]["inline_keyboard"][0][button]["callback_data"]
    brain.bot.send(callback_update(data, message))


def current_text(brain: Brain, message: dict) -> str:
    """The message's text after its last edit."""
    edits = [e for e in brain.bot.fake.calls_to("editMessageText")
             if int(e["message_id"]) == message["message_id"]]
    return str(edits[-1]["text"] if edits else message["text"])


def test_three_failures_of_one_task_produce_exactly_one_proposal(brain: Brain) -> None:
    task = fail_three_times(brain.container)
    brain.rank_first()

    first = brain.container.brain_loop.tick(force=True)
    second = brain.container.brain_loop.tick(force=True)

    assert first.ranking == "llm" and len(first.proposals) == 1
    assert second.proposals == []
    (proposal,) = brain.container.brain_decisions.list()
    assert proposal.action == {"kind": "retry_task", "task_id": task.id}
    assert proposal.title == "Retry the login fix" and proposal.status == "pending"
    (message,) = brain.proposal_messages()
    assert "Retry the login fix" in message["text"] and "retry task" in message["text"]
    buttons = [b["text"] for b in message["reply_markup"]["inline_keyboard"][0]]
    assert buttons == ["✅ Approve", "✖️ Reject"]
    assert brain.llm_calls() == 1  # the second cycle had nothing new to rank


def test_approve_creates_the_retry_task_once_even_if_pressed_twice(brain: Brain) -> None:
    task = fail_three_times(brain.container)
    brain.container.brain_loop.tick(force=True)
    (message,) = brain.proposal_messages()

    press(brain, message, 0)
    press(brain, message, 0)

    copies = [t for t in brain.container.tasks.list_tasks(project="web") if t.description == task.description]
    assert len(copies) == 2  # the failed task and one retry
    retry = next(t for t in copies if t.id != task.id)
    assert retry.status.value == "queued" and retry.idempotency_key is not None
    (proposal,) = brain.container.brain_decisions.list()
    assert proposal.status == "approved" and retry.id[:8] in (proposal.result or "")
    assert f"retry task {retry.id[:8]} created" in current_text(brain, message)
    answers = brain.bot.fake.calls_to("answerCallbackQuery")
    assert [a.get("text") for a in answers] == ["Approved", "Approved"]


def reply_to(brain: Brain, asked: dict, text: str) -> None:
    """Alice answering the bot's message `asked` with a reply."""
    update = message_update(text)
    update["message"]["reply_to_message"] = {**asked, "date": asked.get("date", 1732240025)}
    update["message"].pop("message_thread_id", None)
    update["message"].pop("is_topic_message", None)
    brain.bot.send(update)


def test_reject_asks_why_and_the_reply_is_recorded_as_the_reason(brain: Brain) -> None:
    task = fail_three_times(brain.container)
    brain.container.brain_loop.tick(force=True)
    (message,) = brain.proposal_messages()

    press(brain, message, 1)
    (proposal,) = brain.container.brain_decisions.list()
    assert proposal.status == "rejected" and proposal.reject_reason is None
    (question,) = [m for m in brain.bot.fake.sent_messages(chat_id=GROUP)
                   if m["text"].startswith(f"Why reject proposal {proposal.id[:8]}?")]
    asked = [c for c in brain.bot.fake.calls_to("sendMessage") if c["text"] == question["text"]]
    assert asked[0]["reply_markup"]["force_reply"] is True

    reply_to(brain, question, "the login page is being rewritten")

    (done,) = brain.container.brain_decisions.list()
    assert done.status == "rejected" and done.reject_reason == "the login page is being rewritten"
    assert done.decided_by and done.decided_by.startswith("telegram:")
    assert "Rejected: the login page is being rewritten" in brain.bot.fake.sent_texts(chat_id=GROUP)[-1]
    assert "Rejected" in current_text(brain, message)
    assert [t.id for t in brain.container.tasks.list_tasks(project="web")] == [task.id]


def test_a_reply_to_anything_else_is_not_taken_for_a_reason(brain: Brain) -> None:
    fail_three_times(brain.container)
    brain.container.brain_loop.tick(force=True)
    (message,) = brain.proposal_messages()
    press(brain, message, 1)

    reply_to(brain, message, "not a reason: a reply to the proposal itself")

    (proposal,) = brain.container.brain_decisions.list()
    assert proposal.status == "rejected" and proposal.reject_reason is None


def test_reject_with_the_command_records_why(brain: Brain) -> None:
    fail_three_times(brain.container)
    brain.container.brain_loop.tick(force=True)
    (proposal,) = brain.container.brain_decisions.list()

    brain.bot.send(message_update(f"/brain reject {proposal.id[:8]} flaky CI, not the code"))

    (done,) = brain.container.brain_decisions.list()
    assert done.status == "rejected" and done.reject_reason == "flaky CI, not the code"


def test_a_proposal_expires_after_24_hours(brain: Brain) -> None:
    fail_three_times(brain.container)
    brain.container.brain_loop.tick(force=True)
    (message,) = brain.proposal_messages()
    c = brain.container
    actions = CapabilityActions(lambda: c.tasks, lambda: c.queues, c.machine_registry.pause)

    def decisions_at(offset: timedelta) -> ProposalDecisions:
        return ProposalDecisions(c.brain_units, actions, c.brain_channel,
                                 clock=lambda: datetime.now(UTC) + offset)

    later, nearly = decisions_at(timedelta(hours=24, minutes=1)), decisions_at(timedelta(hours=23))

    assert nearly.expire_due() == 0
    assert later.expire_due() == 1
    press(brain, message, 0)  # too late: nothing runs

    (proposal,) = c.brain_decisions.list()
    assert proposal.status == "expired"
    assert "Expired" in current_text(brain, message)
    assert len(c.tasks.list_tasks(project="web")) == 1


def test_the_kill_switch_stops_a_cycle_mid_way(brain: Brain) -> None:
    fail_three_times(brain.container)
    brain.llm.script_chat_delay(2.0)
    reports = []
    cycle = threading.Thread(target=lambda: reports.append(brain.container.brain_loop.tick(force=True)))
    cycle.start()
    wait_for(lambda: brain.llm_calls() == 1, timeout_s=30, what="the orient call")

    brain.container.brain_decisions.switch(False)
    cycle.join(60)

    (report,) = reports
    assert not report.ran and report.reason == "switched off mid-cycle"
    assert brain.container.brain_decisions.list() == [] and brain.proposal_messages() == []
    assert brain.container.brain_loop.tick(force=True).reason == "off"
    assert brain.llm_calls() == 1  # no cycle thinks while the brain is off


def test_the_kill_switch_stops_a_pending_action(brain: Brain) -> None:
    fail_three_times(brain.container)
    brain.container.brain_loop.tick(force=True)
    (message,) = brain.proposal_messages()

    brain.container.brain_decisions.switch(False)
    press(brain, message, 0)

    (proposal,) = brain.container.brain_decisions.list()
    assert proposal.status == "pending"
    assert len(brain.container.tasks.list_tasks(project="web")) == 1
    alert = brain.bot.fake.calls_to("answerCallbackQuery")[-1]
    assert "brain is off" in alert["text"]


def test_the_brain_budget_stops_the_llm_call_and_the_heuristic_still_proposes(brain: Brain) -> None:
    fail_three_times(brain.container)
    brain.container.brain_decisions.configure("budget", "0")

    report = brain.container.brain_loop.tick(force=True)

    assert brain.llm_calls() == 0
    assert report.ranking == "heuristic" and len(report.proposals) == 1
    (proposal,) = brain.container.brain_decisions.list()
    assert proposal.title.startswith("Task failed 3 times in 24 h: fix the login redirect")
    assert len(brain.proposal_messages()) == 1


def test_the_llm_dollar_budget_spent_leaves_the_heuristic_proposing(brain: Brain) -> None:
    c = brain.container
    c.settings = c.settings.replace(llm_daily_budget_usd=0.0000001)
    fail_three_times(c)

    report = c.brain_loop.tick(force=True)

    assert brain.llm_calls() == 0
    assert report.ranking == "heuristic" and len(report.proposals) == 1
