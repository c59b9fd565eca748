"""The Telegram assistant end to end: python-telegram-bot against the fake Telegram server, the
real openai SDK against the fake OpenAI server, real Postgres. A preference stated in one
conversation is in the model's context in a later one; a request for work becomes an offer, and
Create makes exactly one task."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_embedder import WordEmbedder
from tests.fakes.fake_github import TOKEN, FakeGitHub, github_repo
from tests.fakes.fake_openai import CHAT_PATH, FakeOpenAI
from tests.support.telegram_bot import ALICE, GROUP, BotHarness, bot_harness, callback_update, message_update

PREFERENCE = "The user prefers pytest over unittest and short answers"


@pytest.fixture
def openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(
        [github_repo("acme", "billing", default_branch="develop"), github_repo("acme", "shop")]
    ) as fake:
        yield fake


def assistant(
    tmp_path: Path,
    database_url: str,
    moto_endpoint: str,
    openai: FakeOpenAI | None,
    github: FakeGitHub | None = None,
) -> Any:
    keyed: dict[str, Any] = {"embedding_provider": "local"}
    if openai is not None:
        keyed.update(openai_api_key="sk-test", openai_base_url=openai.base_url)
    if github is not None:
        keyed.update(github_token=TOKEN, github_api_url=github.api_url)
    return bot_harness(tmp_path / "home", database_url, moto_endpoint, **keyed)


def answered(bot: BotHarness) -> None:
    bot.container.embedder = WordEmbedder()  # type: ignore[misc]


def chat_requests(openai: FakeOpenAI, text: str) -> list[dict[str, Any]]:
    """The conversation calls (not the structured ones) whose user message carries `text`."""
    return [
        r
        for r in openai.requests_to(CHAT_PATH)
        if "response_format" not in r and any(text in str(m["content"]) for m in r["messages"])
    ]


def test_a_stated_preference_is_in_the_models_context_in_a_later_conversation(
    tmp_path: Path, database_url: str, moto_endpoint: str, openai: FakeOpenAI
) -> None:
    openai.script_chat("Noted: pytest, and I will keep it short.")
    openai.script_chat(json.dumps({"facts": [{"kind": "preference", "fact": PREFERENCE}]}))
    with assistant(tmp_path, database_url, moto_endpoint, openai) as bot:
        answered(bot)
        bot.send(message_update("I prefer pytest over unittest, and short answers please.", chat_id=ALICE))
        assert bot.last_text(chat_id=ALICE) == "Noted: pytest, and I will keep it short."

    openai.script_chat("Use pytest.")
    with assistant(tmp_path, database_url, moto_endpoint, openai) as later:  # a new process, days later
        answered(later)
        later.send(message_update("Which test framework should the new billing module use?", chat_id=ALICE))
        assert later.last_text(chat_id=ALICE) == "Use pytest."

    (request,) = chat_requests(openai, "Which test framework")
    system = request["messages"][0]["content"]
    assert "## What the user told you about themselves" in system and PREFERENCE in system
    structured = [
        r["response_format"]["json_schema"]["name"]
        for r in openai.requests_to(CHAT_PATH)
        if "response_format" in r
    ]
    assert structured == ["assistant_facts"]  # the later question states nothing about the user


def test_without_a_key_the_preference_is_still_learned_by_the_rules(
    tmp_path: Path, database_url: str, moto_endpoint: str
) -> None:
    with assistant(tmp_path, database_url, moto_endpoint, None) as bot:
        answered(bot)
        bot.send(message_update("I prefer pytest over unittest. My name is Alice Liddell.", chat_id=ALICE))

        assert bot.container.user_model.about_user() == [
            "The user's name is Alice Liddell",
            "The user prefers pytest over unittest",
        ]


def test_a_request_for_work_is_offered_and_create_makes_exactly_one_task(
    tmp_path: Path, database_url: str, moto_endpoint: str, openai: FakeOpenAI, github: FakeGitHub
) -> None:
    openai.script_chat(
        json.dumps({"is_task": True, "project": "billing", "prompt": "Fix the flaky login test in billing"})
    )
    with assistant(tmp_path, database_url, moto_endpoint, openai, github) as bot:
        answered(bot)
        bot.container.codeintel.github_sync.run()

        bot.send(message_update("can you fix the flaky login test in billing?", chat_id=ALICE))

        (offer,) = [m for m in bot.fake.sent_messages(chat_id=ALICE) if m.get("reply_markup")]
        assert offer["text"] == (
            "I can create this task:\n\nProject: github.com/acme/billing\n"
            "Branch: from develop\nMachine: the first free machine (none has this project "
            "yet)\nPrompt: Fix the flaky login test in billing\n\nCreate it?"
        )
        assert bot.container.tasks.list_tasks(limit=10) == []  # nothing happens before the tap
        create, cancel = offer["reply_markup"]["inline_keyboard"][0]
        assert (create["text"], cancel["text"]) == ("✅ Create", "✖️ Cancel")

        bot.send(callback_update(create["callback_data"], offer))
        bot.send(callback_update(create["callback_data"], offer))  # a second tap
        bot.send(callback_update(cancel["callback_data"], offer))  # and a late cancel

        (task,) = bot.container.tasks.list_tasks(limit=10)
        assert (task.project, task.description) == (
            "github.com/acme/billing",
            "Fix the flaky login test in billing",
        )
        assert task.cost_budget_usd == 5.0  # under its asker's caps (the defaults), as /task's are
        assert task.engine_options["budget"] == {"cap": "task", "cap_usd": 5.0, "user_id": ALICE}
        answers = [c["text"] for c in bot.fake.calls_to("answerCallbackQuery")]
        assert answers == [
            "Creating the task...",
            "This task was already created.",
            "This task was already created.",
        ]
        assert any(
            t.startswith("📋 github.com/acme/billing\nFix the flaky login test") for t in bot.texts(GROUP)
        )
        with bot.container.llm_units() as uow:
            purposes = {r["purpose"] for r in uow.usage.by_day_and_purpose(1)}
        assert "assistant_intent" in purposes


def test_cancel_creates_nothing_and_the_offer_stays_cancelled(
    tmp_path: Path, database_url: str, moto_endpoint: str, github: FakeGitHub
) -> None:
    with assistant(tmp_path, database_url, moto_endpoint, None, github) as bot:  # no key: the rules read it
        answered(bot)
        bot.container.codeintel.github_sync.run()
        bot.send(message_update("please fix the flaky login test in billing", chat_id=ALICE))
        (offer,) = [m for m in bot.fake.sent_messages(chat_id=ALICE) if m.get("reply_markup")]
        create, cancel = offer["reply_markup"]["inline_keyboard"][0]

        bot.send(callback_update(cancel["callback_data"], offer))
        bot.send(callback_update(create["callback_data"], offer))

        assert bot.container.tasks.list_tasks(limit=10) == []
        answers = [c["text"] for c in bot.fake.calls_to("answerCallbackQuery")]
        assert answers == ["Cancelled.", "This offer was cancelled."]
        assert "Prompt: Fix the flaky login test in billing" in offer["text"]


def test_about_every_ten_messages_personality_traits_are_stored_and_fed_to_the_prompt(
    tmp_path: Path, database_url: str, moto_endpoint: str, openai: FakeOpenAI
) -> None:
    traits = {"traits": [{"trait": "Terse and direct", "confidence": 0.8}]}
    with assistant(tmp_path, database_url, moto_endpoint, openai) as bot:
        answered(bot)
        for i in range(10):
            openai.script_chat(f"ok {i}")
            if i == 9:
                openai.script_chat(json.dumps(traits))
            bot.send(message_update(f"status of deploy {i}?", chat_id=ALICE))
        openai.script_chat("Deployed.")
        bot.send(message_update("and now?", chat_id=ALICE))
        (trait,) = bot.container.memory.recent("_global", category="personality_trait")

    assert (trait.content, round(trait.confidence, 2)) == ("Terse and direct", 0.8)
    (request,) = chat_requests(openai, "and now?")
    system = request["messages"][0]["content"]
    assert (
        "## Personality of the user (shape your tone)\n- Terse and direct (confidence 0.80, seen 1x)"
        in system
    )


def test_repos_and_task_know_the_synced_repositories_and_their_default_branch(
    tmp_path: Path, database_url: str, moto_endpoint: str, github: FakeGitHub
) -> None:
    with assistant(tmp_path, database_url, moto_endpoint, None, github) as bot:
        answered(bot)
        bot.container.codeintel.github_sync.run()

        bot.send(message_update("/repos", chat_id=ALICE))
        listing = bot.last_text(chat_id=ALICE)
        bot.send(message_update("/task github.com/acme/billing fix the flaky login test"))

        assert (
            listing == "GitHub repositories (default branch):\n- acme/billing (develop)\n- acme/shop (main)"
        )
        assert any(
            "queued for github.com/acme/billing (default branch develop)." in t for t in bot.texts(GROUP)
        )
