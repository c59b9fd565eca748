"""A flagged rule is asked about as graph contradictions are: the instruction store flags a rule
file's rule that contradicts a learned one, the announcement with Keep new / Keep old / Keep both
goes to the fake Bot API, and pressing a button settles the clash in the one store; a prompt's
clash, found by the graph, is announced once and its buttons settle the rules too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch
from tests.support.telegram_bot import GROUP, BotHarness, bot_harness, callback_update

INGEST = next(spec for spec in QUEUES if spec.key == "ingest")
PROJECT = "github.com/acme/web"
NPM: list[tuple[str, str, int | None]] = [("project_rule", "Always use npm for package installs", 4)]


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        yield harness


def announced(bot: BotHarness) -> list[tuple[dict[str, Any], dict[str, str]]]:
    found = []
    for message in bot.fake.sent_messages(GROUP):
        markup = message.get("reply_markup")
        if markup:
            rows = (json.loads(markup) if isinstance(markup, str) else markup)["inline_keyboard"]
            found.append((message, {b["text"]: b["callback_data"] for row in rows for b in row}))
    return found


def live(bot: BotHarness) -> dict[str, dict[str, Any]]:
    return {r["text"]: r for r in bot.container.project_rules.listed(PROJECT)}


def test_a_flagged_file_rule_is_announced_and_keep_new_retires_the_learned_one(bot: BotHarness) -> None:
    rules = bot.container.project_rules
    learned = rules.teach(PROJECT, "Always use yarn for package installs")
    (imported,) = rules.import_file(PROJECT, "AGENTS.md", "claude", NPM, writer="person")
    assert imported["outcome"] == "flagged"

    ((message, buttons),) = announced(bot)
    assert "Always use npm for package installs" in message["text"] and "yarn" in message["text"]
    assert set(buttons) == {"Keep new", "Keep old", "Keep both"}
    assert all(len(data.encode()) <= 64 for data in buttons.values())
    assert [c.id for c in bot.container.rule_clashes.open(PROJECT)] == [imported["id"]]

    before = datetime.now(UTC)
    assert bot.send(callback_update(buttons["Keep new"], message))

    assert list(live(bot)) == ["Always use npm for package installs"]
    assert bot.container.rule_clashes.open(PROJECT) == []
    (old,) = rules.listed(PROJECT, as_of=before)
    assert old["id"] == learned["id"] and old["superseded_by"] == imported["id"] and old["valid_until"]
    assert bot.send(callback_update(buttons["Keep old"], message))  # answered: already settled
    assert list(live(bot)) == ["Always use npm for package installs"]


def test_keep_old_on_a_flagged_rule_leaves_the_learned_rule_alone(bot: BotHarness) -> None:
    rules = bot.container.project_rules
    rules.teach(PROJECT, "Always use yarn for package installs")
    rules.import_file(PROJECT, "AGENTS.md", "claude", NPM, writer="person")
    ((message, buttons),) = announced(bot)

    assert bot.send(callback_update(buttons["Keep old"], message))

    assert list(live(bot)) == ["Always use yarn for package installs"]
    assert bot.container.rule_clashes.open(PROJECT) == []


def test_a_prompts_clash_is_announced_once_and_keep_new_makes_the_new_rule_live(bot: BotHarness) -> None:
    for text in ("Always deploy the billing service on Fridays.",
                 "Never deploy the billing service on Fridays."):
        bot.container.graph_store.submit(PROJECT, text)
        assert deliver_batch(bot.container.queues, INGEST, wait_s=5) == 1
    assert list(live(bot)) == ["Always deploy the billing service on Fridays"]

    ((message, buttons),) = announced(bot)
    assert bot.send(callback_update(buttons["Keep new"], message))

    assert list(live(bot)) == ["Never deploy the billing service on Fridays"]
