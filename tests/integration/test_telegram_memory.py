"""/recall, /learn, /feedback and conversation: the bot over the memory core and the learning loop."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.llm.domain.llm_budget import DailyBudget
from chalicelib.llm.services.budgeted_llm import BudgetedLlm
from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.tasks.domain.task_model import NewTask
from tests.fakes.fake_embedder import WordEmbedder
from tests.fakes.fake_llm import ScriptedChat
from tests.support.telegram_bot import ALICE, GROUP, BotHarness, bot_harness, message_update


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        harness.container.embedder = WordEmbedder()  # type: ignore[assignment, misc]
        yield harness


def _remember(bot: BotHarness, project: str, category: str, content: str) -> str:
    return bot.container.memory.remember(MemoryDraft(project=project, category=category, content=content)).id


def _with_llm(bot: BotHarness, usd: float = 1.0) -> ScriptedChat:
    chat = ScriptedChat()
    bot.container.llm = BudgetedLlm(chat, bot.container.llm_units, DailyBudget(usd=usd))  # type: ignore[misc]
    return chat


def test_recall_searches_memory_and_lists_the_best_matches(bot: BotHarness) -> None:
    _remember(bot, "_global", "decision", "We deploy the API with Chalice behind API Gateway")
    _remember(bot, "_global", "fact", "The staging database is restored every night")

    bot.send(message_update("/recall how do we deploy the API", chat_id=ALICE))

    text = bot.last_text(chat_id=ALICE)
    assert text.startswith("Memory for “how do we deploy the API”:")
    assert "1. [decision, _global," in text and "Chalice behind API Gateway" in text


def test_recall_with_nothing_relevant_says_so(bot: BotHarness) -> None:
    bot.send(message_update("/recall quantum flux capacitor", chat_id=ALICE))

    assert bot.last_text(chat_id=ALICE) == "Nothing in memory matches “quantum flux capacitor”."


def test_recall_adds_what_the_graph_memory_knows(bot: BotHarness) -> None:
    bot.container.graph_store.run({"project": "_global", "text": "Dana owns the billing service."})

    bot.send(message_update("/recall who owns the billing service", chat_id=ALICE))

    text = bot.last_text(chat_id=ALICE)
    assert "Graph memory:" in text and "Dana owns the billing service." in text


def test_learn_stores_a_project_rule_at_high_confidence(bot: BotHarness) -> None:
    bot.send(message_update("/learn myproject: always run ruff before committing", chat_id=ALICE))

    assert bot.last_text(chat_id=ALICE) == (
        "Learned for myproject (confidence 0.95): Always run ruff before committing")
    (rule,) = bot.container.project_rules.learnings("myproject")
    assert rule["confidence"] == pytest.approx(0.95)


def test_learn_in_a_task_topic_uses_the_tasks_project(bot: BotHarness) -> None:
    bot.send(message_update("/task webapp fix the login bug"))
    (thread,) = [t for (c, t) in bot.fake.topics if c == GROUP]

    bot.send(message_update("/learn never log session tokens", thread_id=thread))

    assert bot.last_text(chat_id=GROUP, thread_id=thread).startswith("Learned for webapp (confidence 0.95)")


def test_feedback_moves_the_lessons_the_task_carried_once(bot: BotHarness) -> None:
    lesson = _remember(bot, "myproject", "task_lesson", "Run the migrations before the tests")
    task = bot.container.tasks.create(NewTask("myproject", "fix the login bug"))
    with bot.container.learning_units() as uow:
        uow.lessons.record_applications(task.id, [lesson])
        uow.commit()
    before = bot.container.memory.get(lesson).confidence

    bot.send(message_update(f"/feedback {task.id[:8]} good", chat_id=ALICE))
    bot.send(message_update(f"/feedback {task.id[:8]} bad", chat_id=ALICE))

    texts = bot.texts(chat_id=ALICE)
    assert texts == [f"Thanks: task {task.id[:8]} rated good; 1 lesson(s) adjusted.",
                     "This task was already rated."]
    assert bot.container.memory.get(lesson).confidence == pytest.approx(before + 0.10)


def test_a_note_left_with_the_verdict_is_learned_from_as_the_users_words(bot: BotHarness) -> None:
    task = bot.container.tasks.create(NewTask("myproject", "fix the flaky signup test"))

    bot.send(message_update(f"/feedback {task.id[:8]} bad it skipped the migrations. "
                            "Always run the migrations before the tests.", chat_id=ALICE))

    assert bot.last_text(chat_id=ALICE) == (f"Thanks: task {task.id[:8]} rated bad; no lessons were applied "
                                            "to it. From your note: 1 rule(s), 0 lesson(s).")
    (rule,) = bot.container.project_rules.learnings("myproject")
    assert (rule["rule"], rule["source"], rule["confidence"]) == (
        "Always run the migrations before the tests", "task", pytest.approx(0.8))


def test_free_text_is_answered_by_the_llm_with_memory_tasks_and_lessons_in_context(bot: BotHarness) -> None:
    chat = _with_llm(bot)
    chat.reply("You deploy with Chalice; the login task is queued.")
    _remember(bot, "_global", "fact", "Alice prefers deploying on Fridays before noon")
    bot.container.tasks.create(NewTask("webapp", "fix the login bug"))
    bot.container.project_rules.teach("_global", "Always deploy with Chalice")

    bot.send(message_update("Remember that I always deploy on Fridays before noon, ok?", chat_id=ALICE))

    assert bot.last_text(chat_id=ALICE) == "You deploy with Chalice; the login task is queued."
    call, facts = chat.calls  # the answer, then what the assistant learned about Alice from it
    assert facts.schema is not None and "Remember that I always deploy" in facts.user
    assert "Alice: Remember that I always deploy" in call.user
    assert "## Facts" in call.system and "prefers deploying on Fridays" in call.system
    assert "## Active tasks" in call.system and "webapp (queued): fix the login bug" in call.system
    assert "## Lessons" in call.system and "Always deploy with Chalice" in call.system
    stored = bot.container.memory.recent("_global", category="conversation")
    assert len(stored) == 1 and "Itachi answered: You deploy with Chalice" in stored[0].content


def test_small_talk_is_answered_but_not_remembered(bot: BotHarness) -> None:
    _with_llm(bot).reply("Hello!")

    bot.send(message_update("hi", chat_id=ALICE))

    assert bot.last_text(chat_id=ALICE) == "Hello!"
    assert bot.container.memory.recent("_global", category="conversation") == []


def test_over_the_daily_budget_the_bot_says_it_cannot_answer(bot: BotHarness) -> None:
    chat = _with_llm(bot, usd=0.0)

    bot.send(message_update("what is queued?", chat_id=ALICE))

    assert bot.last_text(chat_id=ALICE).startswith("I cannot answer right now")
    assert chat.calls == []


def test_memory_stats_check_and_snapshot_answer_in_the_chat(bot: BotHarness) -> None:
    _remember(bot, "shop", "fact", "The shop's checkout retries payments twice")
    _remember(bot, "shop", "decision", "Orders are archived after 90 days")

    bot.send(message_update("/memory stats shop", chat_id=ALICE))
    assert bot.last_text(chat_id=ALICE) == "Memory of shop: full 2, hint 0, abstract 0, archived 0"

    bot.send(message_update("/memory check shop", chat_id=ALICE))
    text = bot.last_text(chat_id=ALICE)
    assert text.startswith("Integrity of shop: no problems") and "orphan_edges: 0" in text

    bot.send(message_update("/memory snapshot before-sale shop", chat_id=ALICE))
    assert bot.last_text(chat_id=ALICE) == "Snapshot before-sale of shop: 2 memories, 0 archived originals."
    assert [s["name"] for s in bot.container.memory_snapshots.listing("shop")] == ["before-sale"]

    bot.send(message_update("/memory snapshot before-sale", chat_id=ALICE))
    assert bot.last_text(chat_id=ALICE).startswith("Which project?")
    bot.send(message_update("/memory vacuum", chat_id=ALICE))
    assert bot.last_text(chat_id=ALICE).startswith("Usage: /memory stats|check")
