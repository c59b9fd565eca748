"""A contradiction the reconciler finds on its own reaches the Telegram buttons through the
wiring: two opposite instructions go through the ingest queue (moto) and the heuristic store
pipeline (no model key) into Postgres; the announcement with Keep new / Keep old / Keep both
goes to the fake Bot API, and pressing one resolves the contradiction."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch
from tests.support.telegram_bot import GROUP, BotHarness, bot_harness, callback_update

INGEST = next(spec for spec in QUEUES if spec.key == "ingest")
PROJECT = "billing"


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        yield harness


def learn(bot: BotHarness, text: str) -> None:
    bot.container.graph_store.submit(PROJECT, text)
    assert deliver_batch(bot.container.queues, INGEST, wait_s=5) == 1


def keyboard_messages(bot: BotHarness) -> list[dict[str, Any]]:
    return [m for m in bot.fake.sent_messages(GROUP) if m.get("reply_markup")]


def test_a_contradiction_the_reconciler_finds_is_announced_with_buttons_that_resolve_it(
    bot: BotHarness,
) -> None:
    assert not bot.container.settings.openai_api_key  # the heuristic pipeline, as without a key
    learn(bot, "Always deploy the billing service on Fridays.")
    assert keyboard_messages(bot) == []
    learn(bot, "Never deploy the billing service on Fridays.")

    (announced,) = keyboard_messages(bot)
    assert "Never deploy the billing service on Fridays." in announced["text"]
    assert "Always deploy the billing service on Fridays." in announced["text"]
    markup = announced["reply_markup"]
    rows = (json.loads(markup) if isinstance(markup, str) else markup)["inline_keyboard"]
    buttons = {b["text"]: b["callback_data"] for row in rows for b in row}
    assert set(buttons) == {"Keep new", "Keep old", "Keep both"}
    (listed,) = bot.container.graph_admin.contradictions(PROJECT)

    assert bot.send(callback_update(buttons["Keep new"], announced))

    assert bot.container.graph_admin.contradictions(PROJECT) == []
    (resolved,) = bot.container.graph_admin.contradictions(PROJECT, "keep_new")
    assert resolved["id"] == listed["id"]
    assert bot.container.graph_admin.profile(listed["old"]["id"])["superseded_by"] == listed["new"]["id"]
