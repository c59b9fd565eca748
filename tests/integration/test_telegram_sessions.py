"""Interactive sessions from Telegram: the engine x mode picker, the topic relay, /close and /export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.tasks.domain.machine_records import Heartbeat
from chalicelib.tasks.domain.task_model import NewEvent
from tests.support.orchestration import machine_messages
from tests.support.telegram_bot import GROUP, BotHarness, bot_harness, callback_update, message_update


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        harness.container.machine_registry.heartbeat(Heartbeat(
            machine_id="laptop", status="online", agent_instance="i-laptop", active_tasks=0, max_concurrent=2,
            engine_priority=("claude", "codex", "gemini"), projects=("myproject",), repos=()))
        yield harness


def _picker(bot: BotHarness) -> dict[str, Any]:
    (message,) = [m for m in bot.fake.sent_messages(chat_id=GROUP) if m.get("reply_markup")]
    return message


def _press(bot: BotHarness, label: str) -> None:
    picker = _picker(bot)
    (data,) = [b["callback_data"] for row in picker["reply_markup"]["inline_keyboard"] for b in row
               if b["text"] == label]
    bot.send(callback_update(data, picker))


def _session_topic(bot: BotHarness) -> int:
    (thread,) = [thread for (chat, thread) in bot.fake.topics if chat == GROUP]
    return thread


def test_session_offers_the_engine_by_mode_picker(bot: BotHarness) -> None:
    bot.send(message_update("/session laptop show me git status"))

    picker = _picker(bot)
    assert picker["text"] == "Session on laptop: show me git status\nWhich engine and mode?"
    labels = [[b["text"] for b in row] for row in picker["reply_markup"]["inline_keyboard"]]
    assert labels == [["itachi --ds", "itachi --cds"], ["itachic --ds", "itachic --cds"],
                      ["itachig --ds", "itachig --cds"]]


def test_a_session_relays_topic_text_to_the_engine_and_its_output_back(bot: BotHarness) -> None:
    bot.send(message_update("/session laptop myproject: show me git status"))
    _press(bot, "itachi --ds")

    thread = _session_topic(bot)
    (session,) = bot.container.agent_sessions.list_sessions()
    assert (session.machine_id, session.project, session.engine) == ("laptop", "myproject", "claude")
    assert (session.telegram_chat_id, session.telegram_topic_id) == (GROUP, thread)
    assert bot.fake.calls_to("answerCallbackQuery")[0]["text"] == "Starting itachi --ds..."
    edited = bot.fake.messages[(GROUP, _picker(bot)["message_id"])]
    assert edited["text"].startswith(f"Session {session.id[:8]} started on laptop with itachi --ds.")
    bot.container.agent_sessions.claim(session.id, "laptop")  # the agent starts the engine
    assert [m["kind"] for m in machine_messages(bot.container, "laptop")] == ["session_start"]

    bot.send(message_update("now run the tests", thread_id=thread))  # relayed, not answered by the LLM

    inputs = [e["text"] for e in bot.container.agent_sessions.events(session.id) if e["kind"] == "user_input"]
    assert inputs == ["show me git status", "now run the tests"]
    (relayed,) = machine_messages(bot.container, "laptop")
    assert relayed == {"kind": "session_input", "session_id": session.id, "seq": 2,
                       "text": "now run the tests"}

    bot.container.agent_sessions.record_events(session.id, "laptop", [
        NewEvent("text", "On branch main, nothing to commit."),
        NewEvent("tool_use", "Bash", {"command": "pytest"}), NewEvent("text", "12 passed.")])
    bot.flush()

    texts = bot.texts(chat_id=GROUP, thread_id=thread)
    assert texts[0].startswith("💬 Session on laptop (itachi --ds)\nshow me git status")
    assert texts[-1].endswith("On branch main, nothing to commit.\n🔧 Bash\n12 passed.")
    assert all("not configured" not in t for t in texts)


def test_close_in_the_session_topic_ends_the_session_and_closes_the_topic(bot: BotHarness) -> None:
    bot.send(message_update("/session laptop show me git status"))
    _press(bot, "itachi --ds")
    thread = _session_topic(bot)
    (session,) = bot.container.agent_sessions.list_sessions()

    bot.send(message_update("/close", thread_id=thread))
    bot.flush()

    assert bot.container.agent_sessions.get(session.id).status == "closing"
    assert bot.texts(chat_id=GROUP, thread_id=thread)[-1].endswith("🛑 Session closed.")
    assert bot.fake.topics[(GROUP, thread)]["closed"] is True
    assert bot.fake.topics[(GROUP, thread)]["name"] == "✅ laptop: show me git status"

    bot.container.agent_sessions.ended(session.id, "laptop", 0, None)  # the agent's report changes nothing
    bot.flush()
    assert bot.container.topic_streams.pending_streams() == []


def test_a_second_press_of_the_picker_starts_nothing_more(bot: BotHarness) -> None:
    bot.send(message_update("/session laptop show me git status"))
    _press(bot, "itachi --ds")
    picker = _picker(bot)

    bot.send(callback_update(picker["reply_markup"]["inline_keyboard"][0][1]["callback_data"], picker))

    assert len(bot.container.agent_sessions.list_sessions()) == 1
    assert bot.fake.calls_to("answerCallbackQuery")[-1]["text"] == "This choice was already made."


@pytest.mark.parametrize(("label", "engine"), [("itachic --ds", "codex"), ("itachig --ds", "gemini")])
def test_the_codex_and_gemini_buttons_start_sessions_on_those_engines(
        bot: BotHarness, label: str, engine: str) -> None:
    bot.send(message_update("/session laptop show me git status"))

    _press(bot, label)

    (session,) = bot.container.agent_sessions.list_sessions()
    assert session.engine == engine
    assert bot.texts(chat_id=GROUP, thread_id=_session_topic(bot))[0].startswith(
        f"💬 Session on laptop ({label})")


def test_a_machine_that_went_offline_explains_why_and_closes_the_topic(bot: BotHarness) -> None:
    bot.send(message_update("/session desktop show me git status"))

    _press(bot, "itachig --ds")

    assert bot.container.agent_sessions.list_sessions() == []
    alert = bot.fake.calls_to("answerCallbackQuery")[-1]
    assert alert["show_alert"] is True and "desktop is not online" in alert["text"]
    thread = _session_topic(bot)
    assert bot.fake.topics[(GROUP, thread)]["closed"] is True


def test_close_outside_a_session_topic_says_where_it_works(bot: BotHarness) -> None:
    bot.send(message_update("/close"))

    assert bot.last_text(chat_id=GROUP) == "/close works in a session's topic."


def test_an_engine_switch_in_a_session_shows_in_its_topic(bot: BotHarness) -> None:
    bot.send(message_update("/session laptop show me git status"))
    _press(bot, "itachi --ds")
    thread = _session_topic(bot)
    (session,) = bot.container.agent_sessions.list_sessions()
    bot.container.agent_sessions.claim(session.id, "laptop")

    bot.container.agent_sessions.switch_engine(session.id, "laptop", "claude", "codex", "429 Too Many")
    bot.flush()

    assert bot.texts(chat_id=GROUP, thread_id=thread)[-1].endswith("🔁 claude -> codex: 429 Too Many")


def test_a_picker_deleted_before_its_answer_is_edited_still_starts_the_session_without_an_alarm(
        bot: BotHarness) -> None:
    bot.send(message_update("/session laptop show me git status"))
    picker = _picker(bot)
    data = picker["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    del bot.fake.messages[(GROUP, picker["message_id"])]  # deleted in another client meanwhile

    bot.send(callback_update(data, picker))

    (session,) = bot.container.agent_sessions.list_sessions()
    assert session.engine == "claude"
    assert [c["text"] for c in bot.fake.calls_to("answerCallbackQuery")] == ["Starting itachi --ds..."]


def test_export_in_the_session_topic_sends_the_conversation_as_a_markdown_file(bot: BotHarness) -> None:
    bot.send(message_update("/session laptop myproject: why does the invoice test fail?"))
    _press(bot, "itachi --ds")
    thread = _session_topic(bot)
    (session,) = bot.container.agent_sessions.list_sessions()
    bot.container.agent_sessions.claim(session.id, "laptop")
    bot.send(message_update("fix it with Decimal", thread_id=thread))
    bot.container.agent_sessions.record_events(session.id, "laptop", [
        NewEvent("text", "Switched to Decimal.quantize with ROUND_HALF_UP.")])

    bot.send(message_update("/export", thread_id=thread))

    (sent,) = bot.fake.calls_to("sendDocument")
    assert sent["message_thread_id"] == thread
    assert sent["document_file_name"] == f"session-{session.id[:8]}.md"
    text = sent["document"].decode()
    assert text.startswith(f"# Session {session.id}\n")
    turns = [text.index(piece) for piece in ("## You", "why does the invoice test fail?",
                                              "fix it with Decimal",
                                              "## claude", "Switched to Decimal.quantize")]
    assert turns == sorted(turns)


def test_export_json_sends_every_event_with_its_role(bot: BotHarness) -> None:
    bot.send(message_update("/session laptop myproject: show me git status"))
    _press(bot, "itachi --ds")
    thread = _session_topic(bot)
    (session,) = bot.container.agent_sessions.list_sessions()
    bot.container.agent_sessions.claim(session.id, "laptop")
    bot.container.agent_sessions.record_events(session.id, "laptop", [NewEvent("text", "nothing to commit")])

    bot.send(message_update("/export json", thread_id=thread))

    (sent,) = bot.fake.calls_to("sendDocument")
    assert sent["document_file_name"] == f"session-{session.id[:8]}.json"
    exported = json.loads(sent["document"])
    assert [(m["role"], m["text"]) for m in exported["messages"]] == [
        ("user", "show me git status"), ("system", "on laptop"), ("engine", "nothing to commit")]


def test_export_outside_a_session_topic_says_where_it_works(bot: BotHarness) -> None:
    bot.send(message_update("/export"))

    assert bot.last_text(chat_id=GROUP) == "/export works in a session's topic."
    assert bot.fake.calls_to("sendDocument") == []


def test_export_in_another_format_answers_with_the_usage(bot: BotHarness) -> None:
    bot.send(message_update("/session laptop myproject: show me git status"))
    _press(bot, "itachi --ds")

    bot.send(message_update("/export html", thread_id=_session_topic(bot)))

    assert "/export [md|json]" in bot.texts(chat_id=GROUP, thread_id=_session_topic(bot))[-1]
    assert bot.fake.calls_to("sendDocument") == []
