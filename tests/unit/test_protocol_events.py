"""The engines' JSON-RPC messages as engine events, questions and answers."""

from __future__ import annotations

from agent.engines.protocol_events import (
    acp_answer,
    acp_ask,
    acp_event,
    codex_answer,
    codex_ask,
    codex_event,
)
from chalicelib.contracts.engine_events import EventKind

OPTIONS = [{"optionId": "yes", "kind": "allow_once"}, {"optionId": "no", "kind": "reject_once"}]


def test_codex_is_answered_in_the_words_of_the_protocol_that_asked() -> None:
    assert codex_answer("item/commandExecution/requestApproval", "always") == {"decision": "acceptForSession"}
    assert codex_answer("item/fileChange/requestApproval", "deny") == {"decision": "decline"}
    assert codex_answer("execCommandApproval", "allow") == {"decision": "approved"}


def test_a_codex_file_change_question_names_the_files_of_the_item_it_is_about() -> None:
    item = {"id": "i1", "type": "fileChange", "changes": [{"path": "src/app.py"}]}
    ask = codex_ask("item/fileChange/requestApproval", {"itemId": "i1"}, item)
    assert (ask.tool, ask.summary) == ("apply_patch", "edit src/app.py")


def test_a_codex_turn_failed_on_a_rate_limit_reports_the_limit_and_an_error_result() -> None:
    turn = {"status": "failed", "error": {"message": "429 Too Many"}}
    events = codex_event("turn/completed", {"turn": turn})
    assert [e.kind for e in events] == [EventKind.RATE_LIMIT, EventKind.RESULT]
    assert events[1].data["is_error"] is True


def test_gemini_gets_the_allow_once_option_when_it_offers_no_allow_always() -> None:
    assert acp_answer(OPTIONS, "always") == {"outcome": {"outcome": "selected", "optionId": "yes"}}
    assert acp_answer(OPTIONS, "deny") == {"outcome": {"outcome": "selected", "optionId": "no"}}
    assert acp_answer(OPTIONS[:1], "deny") == {"outcome": {"outcome": "cancelled"}}


def test_a_gemini_question_is_asked_by_tool_kind_with_its_command() -> None:
    call = {"title": "Shell", "kind": "execute", "rawInput": {"command": "rm -rf build"}}
    ask = acp_ask({"toolCall": call})
    assert (ask.tool, ask.summary) == ("execute", "Shell: rm -rf build")


def test_gemini_message_chunks_are_text_deltas() -> None:
    (event,) = acp_event({"update": {"sessionUpdate": "agent_message_chunk",
                                     "content": {"type": "text", "text": "hello"}}})
    assert (event.kind, event.text, event.data["delta"]) == (EventKind.TEXT, "hello", True)
