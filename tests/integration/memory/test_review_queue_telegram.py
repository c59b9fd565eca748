"""The review queue in Telegram: the scheduled digest sends what waits for a person in one batched
message with Keep / Edit / Drop per memory (python-telegram-bot against the fake Bot API, real
Postgres); kept memories are trusted with the Telegram user recorded, edited ones keep the text of
the reply, dropped ones are archived, never deleted; each memory is announced once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.memory.domain.memory_lifecycle import ARCHIVED
from chalicelib.memory.domain.memory_model import MemoryDraft
from functions.review_digest import handler as review_digest
from tests.support.telegram_bot import ALICE, GROUP, BotHarness, bot_harness, callback_update, message_update

PROJECT = "billing"


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        yield harness


def agent_finding(bot: BotHarness, text: str) -> str:
    stored = bot.container.memory.remember(MemoryDraft(project=PROJECT, category="fact", content=text,
                                                       source="agent", writer="key"))
    assert not bot.container.memory.get(stored.id, record_access=False).trusted
    return stored.id


def digests(bot: BotHarness) -> list[dict[str, Any]]:
    return [m for m in bot.fake.sent_messages(GROUP) if m.get("reply_markup")]


def buttons_of(message: dict[str, Any]) -> dict[str, str]:
    markup = message["reply_markup"]
    rows = (json.loads(markup) if isinstance(markup, str) else markup)["inline_keyboard"]
    return {b["text"]: b["callback_data"] for row in rows for b in row}


def test_the_digest_batches_waiting_memories_with_keep_edit_drop_that_decide_each(bot: BotHarness) -> None:
    first = agent_finding(bot, "The invoices job retries three times before paging on-call.")
    second = agent_finding(bot, "The ledger table is partitioned by month since March.")
    third = agent_finding(bot, "The tax service answers in under 200 ms at p99.")
    proposal = bot.container.project_rules.teach(PROJECT, "Run the billing migrations before deploying",
                                                 writer="key")
    assert proposal["outcome"] == "proposed"

    assert review_digest({}, None) == {"announced": 4}
    assert review_digest({}, None) == {"announced": 0}  # each memory is announced once

    (digest,) = digests(bot)
    assert "4 memories wait for review" in digest["text"]
    assert "retries three times" in digest["text"] and "proposed rule" in digest["text"]
    buttons = buttons_of(digest)
    assert set(buttons) == {f"{n} {verb}" for n in range(1, 5) for verb in ("Keep", "Edit", "Drop")}
    assert all(len(data.encode()) <= 64 for data in buttons.values())

    assert bot.send(callback_update(buttons["1 Keep"], digest))
    kept = bot.container.memory.get(first, record_access=False)
    assert kept.trusted and kept.promoted_by == f"telegram:{ALICE}"
    assert kept.metadata["reviewed_by"] == f"telegram:{ALICE}" and kept.metadata["reviewed_at"]

    assert bot.send(callback_update(buttons["2 Drop"], digest))
    dropped = bot.container.memory.get(second, record_access=False)
    assert dropped.phase == ARCHIVED and not dropped.trusted  # archived, still readable by id
    assert dropped.metadata["review"] == "dropped" and dropped.metadata["reviewed_by"] == f"telegram:{ALICE}"
    assert bot.container.memory_lifecycle.restore(second)[1]  # the original sits in the archive

    assert bot.send(callback_update(buttons["3 Edit"], digest))
    question = bot.fake.sent_messages(GROUP)[-1]
    assert third in question["text"] and "Reply to this message" in question["text"]
    reply = message_update("The tax service answers in under 250 ms at p99.")
    reply["message"]["reply_to_message"] = {**question, "date": question.get("date", 1732240025)}
    assert bot.send(reply)
    edited = bot.container.memory.get(third, record_access=False)
    assert edited.content == "The tax service answers in under 250 ms at p99."
    assert edited.trusted and edited.metadata["reviewed_by"] == f"telegram:{ALICE}"

    assert bot.send(callback_update(buttons["4 Keep"], digest))
    (rule,) = bot.container.project_rules.learnings(PROJECT)
    assert rule["id"] == proposal["id"]  # the proposal is a live rule now

    answers = [a.get("text") for a in bot.fake.calls_to("answerCallbackQuery")]
    assert answers == ["Kept.", "Dropped.", "Reply with the new text.", "Kept."]
    assert bot.send(callback_update(buttons["1 Drop"], digest))  # decided already: nothing changes
    assert bot.container.memory.get(first, record_access=False).phase == 0
    assert "not waiting for review" in (bot.fake.calls_to("answerCallbackQuery")[-1].get("text") or "")
    assert bot.container.memory_review.waiting() == []
