"""/rules and its ⬆ Promote to <namespace> buttons through the real python-telegram-bot client against
the fake Bot API (which refuses callback data over 64 bytes): a member project's rules come one
message each with a button per namespace; an allow-listed press promotes through the one promotion
and edits the message to say so; a stranger's press changes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_embedder import WordEmbedder
from tests.fakes.fake_telegram import load_update_fixture
from tests.support.telegram_bot import GROUP, BotHarness, bot_harness, callback_update, message_update

WEB, API, OTHER = "github.com/acme/web", "github.com/acme/api", "github.com/someone/else"
YARN = "Use yarn, not npm, for package installs"
RUFF = "Run ruff before every commit"
SHARED = "Review every migration with a second person"
LONG = "platform-engineering-conventions-for-every-repository"


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        harness.container.embedder = WordEmbedder()  # type: ignore[assignment, misc]
        yield harness


def offered(bot: BotHarness) -> list[dict[str, Any]]:
    return [m for m in bot.fake.sent_messages(chat_id=GROUP) if m.get("reply_markup")]


def buttons(message: dict[str, Any]) -> list[tuple[str, str]]:
    rows = message["reply_markup"]["inline_keyboard"]
    return [(b["text"], b["callback_data"]) for row in rows for b in row]


def edits_of(bot: BotHarness, message: dict[str, Any]) -> list[str]:
    return [str(e["text"]) for e in bot.fake.calls_to("editMessageText")
            if int(e["message_id"]) == message["message_id"]]


def press_as_stranger(data: str, message: dict[str, Any]) -> dict[str, Any]:
    update = callback_update(data, message)
    update["callback_query"]["from"] = json.loads(json.dumps(load_update_fixture("stranger_message")))[
        "message"]["from"]
    return update


def test_rules_offers_a_promote_button_per_rule_and_a_press_promotes_it_and_says_so(bot: BotHarness) -> None:
    container = bot.container
    container.namespaces.create("acme", [WEB, API])
    yarn = container.project_rules.teach(WEB, YARN)
    ruff = container.project_rules.teach(WEB, RUFF)
    container.project_rules.teach("ns:acme", SHARED)

    bot.send(message_update(f"/rules {WEB}"))

    listing = [t for t in bot.texts(chat_id=GROUP) if t.startswith("Rules of")]
    assert listing == [f"Rules of {WEB}, a project of acme.\nIts own 2 rule(s) follow, each with a button to "
                       "promote it: every project of the namespace reads it from then on.\n\n"
                       f"From its namespaces:\n• {SHARED} (confidence 0.95) (acme)"]
    first, second = offered(bot)
    assert {first["text"], second["text"]} == {f"{yarn['rule']} (confidence 0.95)",
                                               f"{ruff['rule']} (confidence 0.95)"}
    (label, data), = buttons(first)
    assert label == "⬆ Promote to acme" and len(data.encode()) <= 64
    rule = yarn if first["text"].startswith(yarn["rule"]) else ruff

    bot.send(press_as_stranger(data, first))
    assert [r["id"] for r in container.project_rules.listed(API)] != [] and all(
        r["text"] != rule["rule"] for r in container.project_rules.listed(API))
    assert edits_of(bot, first) == []

    bot.send(callback_update(data, first))

    assert edits_of(bot, first) == [f"⬆ Promoted to acme by telegram:alice_dev: {rule['rule']}\n"
                                    f"From {WEB}; every project of acme reads it now."]
    assert bot.fake.calls_to("answerCallbackQuery")[-1]["text"] == "Promoted."
    (shared,) = [r for r in container.project_rules.listed(API) if r["text"] == rule["rule"]]
    assert shared["namespace"] == "acme"
    stored = container.memory.get(shared["id"], record_access=False)
    assert stored.metadata["promoted_by"] == "telegram:alice_dev"
    assert stored.metadata["promoted_from"] == {"project": WEB, "id": rule["id"]}

    bot.send(callback_update(data, first))  # a second press: the rule was moved up already
    again = bot.fake.calls_to("answerCallbackQuery")[-1]
    assert again["show_alert"] is True and "was replaced by" in again["text"]
    assert len(edits_of(bot, first)) == 1


def test_a_namespace_name_too_long_for_the_callback_data_is_found_again_from_its_cut(bot: BotHarness) -> None:
    bot.container.namespaces.create(LONG, [WEB])
    rule = bot.container.project_rules.teach(WEB, YARN)

    bot.send(message_update(f"/rules {WEB}"))
    (message,) = offered(bot)
    (label, data), = buttons(message)
    assert label == f"⬆ Promote to {LONG}" and len(data.encode()) <= 64
    bot.send(callback_update(data, message))

    assert edits_of(bot, message)[0].startswith(f"⬆ Promoted to {LONG} by telegram:alice_dev: {rule['rule']}")
    assert [r.get("namespace") for r in bot.container.project_rules.listed(WEB)] == [LONG]


def test_rules_of_a_project_in_no_namespace_lists_them_without_buttons(bot: BotHarness) -> None:
    bot.container.project_rules.teach(OTHER, RUFF)

    bot.send(message_update(f"/rules {OTHER}"))

    assert bot.last_text(chat_id=GROUP) == (
        f"Rules of {OTHER} (1):\n• Run ruff before every commit (confidence 0.95)\n\n"
        f"{OTHER} is in no namespace: there is nowhere to promote them to.")
    assert offered(bot) == []
    bot.send(message_update("/rules"))  # outside a topic, without a project
    assert bot.last_text(chat_id=GROUP) == "Which project? Usage: /rules [project] (or ask in its topic)"
