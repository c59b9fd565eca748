"""What the real API refuses or cuts short is visible, never a silent fall back to the heuristics.

The real openai SDK talks to the fake OpenAI server, which checks each request as the real API
does (per-model parameters, strict schemas); spend and failures land in real Postgres.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from chalicelib.kernel.database import Database
from chalicelib.llm.adapters.llm_usage_repository import llm_units
from chalicelib.llm.adapters.openai_chat import OpenAIChat
from chalicelib.llm.domain.llm_budget import DailyBudget
from chalicelib.llm.services.budgeted_llm import BudgetedLlm
from tests.fakes.fake_openai import CHAT_PATH, FakeOpenAI, error_body
from tests.integration.test_openai_llm import SCHEMA, db, fake, usage_rows

__all__ = ["db", "fake"]  # fixtures shared with the budgeted-LLM tests


def model_for(fake: FakeOpenAI, db: Database, model: str) -> BudgetedLlm:
    chat = OpenAIChat(api_key="sk-test", base_url=fake.base_url, model=model, timeout_s=10, max_retries=2)
    return BudgetedLlm(chat, llm_units(db), DailyBudget(usd=1.0))


def warnings_for(caplog: pytest.LogCaptureFixture, purpose: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records
            if r.levelno == logging.WARNING and getattr(r, "purpose", None) == purpose]


def failed_today(db: Database, purpose: str) -> int:
    with llm_units(db)() as uow:
        rows = [r for r in uow.usage.by_day_and_purpose(1) if r["purpose"] == purpose]
    return sum(int(r["failed"]) for r in rows)


@pytest.mark.parametrize("model", ["gpt-5-mini", "o4-mini", "gpt-4o-mini"])
def test_each_model_is_sent_the_parameters_the_real_api_accepts_for_it(
        fake: FakeOpenAI, db: Database, model: str) -> None:
    fake.script_chat('{"significance": 0.8}')
    answer = model_for(fake, db, model).complete_json("extract_insights", "s", "u", SCHEMA)

    assert answer == {"significance": 0.8}

    (request,) = fake.requests_to(CHAT_PATH)
    reasoning = model != "gpt-4o-mini"
    assert ("max_completion_tokens" in request, "max_tokens" in request) == (reasoning, not reasoning)
    assert ("temperature" in request) == (not reasoning)
    assert [r["status"] for r in usage_rows(db)] == ["ok"]


def test_a_model_that_refuses_a_parameter_is_sent_the_form_it_takes_on_the_same_call(
        fake: FakeOpenAI, db: Database) -> None:
    message = "Unsupported parameter: 'max_tokens' is not supported with this model."
    fake.script_chat_error(400, error_body(400, message, "max_tokens", "unsupported_parameter"))
    fake.script_chat('{"significance": 0.5}')
    llm = model_for(fake, db, "gpt-4o-mini")

    assert llm.complete_json("extract_insights", "s", "u", SCHEMA) == {"significance": 0.5}
    assert llm.complete_text("chat", "s", "u") is not None  # and every later call sends that form

    first, second, third = fake.requests_to(CHAT_PATH)
    assert "max_tokens" in first and "max_completion_tokens" not in first
    assert "max_completion_tokens" in second and "max_tokens" not in second
    assert "max_completion_tokens" in third and "max_tokens" not in third
    assert [r["status"] for r in usage_rows(db)] == ["ok", "ok"]


def _assert_visible(caplog: pytest.LogCaptureFixture, db: Database, status: str,
                    purpose: str) -> dict[str, Any]:
    (row,) = usage_rows(db)
    assert row["status"] == status and row["purpose"] == purpose
    assert warnings_for(caplog, purpose), "a failure is logged with its purpose"
    assert failed_today(db, purpose) == 1
    return row


def test_a_refusal_answers_none_is_logged_and_counted_as_failed(
        fake: FakeOpenAI, db: Database, caplog: pytest.LogCaptureFixture) -> None:
    fake.script_chat_refusal()

    with caplog.at_level(logging.WARNING):
        assert model_for(fake, db, "gpt-4o-mini").complete_json("extract_insights", "s", "u", SCHEMA) is None

    row = _assert_visible(caplog, db, "refused", "extract_insights")
    assert row["completion_tokens"] > 0  # a refusal is billed


def test_an_answer_cut_by_the_output_cap_is_truncated_not_used(
        fake: FakeOpenAI, db: Database, caplog: pytest.LogCaptureFixture) -> None:
    fake.script_chat("A long reflection. " * 200)

    with caplog.at_level(logging.WARNING):
        assert model_for(fake, db, "gpt-5-mini").complete_text("reflection", "s", "u", max_tokens=50) is None

    _assert_visible(caplog, db, "truncated", "reflection")


def test_a_400_is_rejected_logged_with_the_purpose_and_counted_as_failed(
        fake: FakeOpenAI, db: Database, caplog: pytest.LogCaptureFixture) -> None:
    fake.script_chat_error(400, error_body(400, "This model's maximum context length is 128000 tokens.",
                                           "messages", "context_length_exceeded"))

    with caplog.at_level(logging.WARNING):
        assert model_for(fake, db, "gpt-4o-mini").complete_json("extract_insights", "s", "u", SCHEMA) is None

    row = _assert_visible(caplog, db, "rejected", "extract_insights")
    assert "messages" in row["detail"] and len(fake.requests_to(CHAT_PATH)) == 1


def test_a_model_without_structured_outputs_is_asked_for_plain_json(fake: FakeOpenAI, db: Database) -> None:
    fake.script_chat('{"significance": 0.3}')

    assert model_for(fake, db, "gpt-3.5-turbo").complete_json("extract_insights", "s", "u", SCHEMA) == \
        {"significance": 0.3}

    first, second = fake.requests_to(CHAT_PATH)
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"] == {"type": "json_object"}
