"""The budgeted LLM over the real openai SDK, talking HTTP to the fake OpenAI server,
with spend recorded in real Postgres."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.bootstrap import build
from chalicelib.kernel.database import Database
from chalicelib.llm.adapters.llm_usage_repository import llm_units
from chalicelib.llm.adapters.openai_chat import OpenAIChat
from chalicelib.llm.domain.llm_budget import DailyBudget
from chalicelib.llm.services.budgeted_llm import BudgetedLlm
from tests.fakes.fake_openai import CHAT_PATH, FakeOpenAI
from tests.support.local_stack import settings_for_test

SCHEMA = {
    "type": "object",
    "properties": {"significance": {"type": "number"}},
    "required": ["significance"],
    "additionalProperties": False,
}


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    database = Database(database_url)
    yield database
    database.close()


def llm_for(fake: FakeOpenAI, db: Database, budget: DailyBudget | None = None,
            timeout_s: float = 5.0) -> BudgetedLlm:
    chat = OpenAIChat(api_key="sk-test", base_url=fake.base_url, model="gpt-4o-mini",
                      timeout_s=timeout_s, max_retries=2)
    return BudgetedLlm(chat, llm_units(db), budget or DailyBudget(usd=1.0))


def usage_rows(db: Database) -> list[dict]:
    with db.connection() as conn:
        return conn.execute("SELECT * FROM llm_usage ORDER BY id").fetchall()


def test_scripted_json_comes_back_parsed_with_tokens_and_cost_recorded(
        fake: FakeOpenAI, db: Database) -> None:
    fake.script_chat('{"significance": 0.8}')

    answer = llm_for(fake, db).complete_json("extract_insights", "Score it.", "We chose pgvector.", SCHEMA)

    assert answer == {"significance": 0.8}
    (request,) = fake.requests_to(CHAT_PATH)
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["strict"] is True
    assert request["response_format"]["json_schema"]["schema"] == SCHEMA
    (row,) = usage_rows(db)
    assert (row["purpose"], row["status"], row["model"]) == ("extract_insights", "ok", "gpt-4o-mini")
    assert row["prompt_tokens"] > 0 and row["completion_tokens"] > 0 and float(row["cost_usd"]) > 0


def test_malformed_json_from_the_model_answers_none_and_is_billed(fake: FakeOpenAI, db: Database) -> None:
    fake.script_chat('{"significance": 0.8,,')

    assert llm_for(fake, db).complete_json("extract_insights", "s", "u", SCHEMA) is None
    (row,) = usage_rows(db)
    assert row["status"] == "malformed" and row["prompt_tokens"] > 0


def test_a_429_is_retried_after_retry_after_and_then_succeeds(fake: FakeOpenAI, db: Database) -> None:
    fake.script_chat_error(429, "Rate limit reached", retry_after=0.05)
    fake.script_chat('{"significance": 0.4}')

    answer = llm_for(fake, db).complete_json("extract_insights", "s", "u", SCHEMA)

    assert answer == {"significance": 0.4}
    assert len(fake.requests_to(CHAT_PATH)) == 2
    (row,) = usage_rows(db)
    assert (row["status"], row["attempts"]) == ("ok", 2)


def test_persistent_429s_give_up_after_the_retries_without_raising(fake: FakeOpenAI, db: Database) -> None:
    for _ in range(3):
        fake.script_chat_error(429, "Rate limit reached", retry_after=0.01)

    assert llm_for(fake, db).complete_text("chat", "s", "u") is None
    assert len(fake.requests_to(CHAT_PATH)) == 3
    (row,) = usage_rows(db)
    assert (row["status"], row["attempts"], float(row["cost_usd"])) == ("error", 3, 0.0)


def test_a_slow_model_times_out_quickly_and_answers_none(fake: FakeOpenAI, db: Database) -> None:
    fake.script_chat_delay(60, '{"significance": 0.9}')  # waiting for it would answer, not time out

    assert llm_for(fake, db, timeout_s=0.3).complete_json("extract_insights", "s", "u", SCHEMA) is None

    assert len(fake.requests_to(CHAT_PATH)) == 1  # a timeout is not retried
    (row,) = usage_rows(db)
    assert row["status"] == "timeout" and float(row["cost_usd"]) == float(row["reserved_usd"]) > 0


def test_over_budget_day_skips_the_call_with_a_log_line_and_no_request(
        fake: FakeOpenAI, db: Database, caplog: pytest.LogCaptureFixture) -> None:
    llm = llm_for(fake, db, DailyBudget(usd=0.0005))
    fake.script_chat("x" * 2000)  # a long answer eats most of the day's budget
    assert llm.complete_text("reflection", "s", "u", max_tokens=600) is not None

    with caplog.at_level(logging.WARNING):
        assert llm.complete_json("extract_insights", "s", "u", SCHEMA, max_tokens=600) is None

    assert len(fake.requests_to(CHAT_PATH)) == 1
    assert any("LLM call skipped: daily budget" in r.getMessage() for r in caplog.records)
    rows = usage_rows(db)
    assert [r["status"] for r in rows] == ["ok", "skipped"]
    assert "daily budget of $0.00 reached" in rows[1]["detail"]


def test_a_server_without_json_schema_support_is_asked_for_plain_json(
        fake: FakeOpenAI, db: Database) -> None:
    fake.script_chat_error(400, "response_format json_schema is not supported")
    fake.script_chat('{"significance": 0.3}')

    assert llm_for(fake, db).complete_json("extract_insights", "s", "u", SCHEMA) == {"significance": 0.3}
    first, second = fake.requests_to(CHAT_PATH)
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"] == {"type": "json_object"}
    assert '"significance"' in second["messages"][0]["content"]


def test_the_container_builds_a_budgeted_model_from_settings(
        fake: FakeOpenAI, database_url: str, tmp_path: Path) -> None:
    settings = settings_for_test(tmp_path, database_url, None).replace(
        openai_api_key="sk-test", openai_base_url=fake.base_url, llm_model="gpt-4o-mini")
    container = build(settings)
    fake.script_chat("hello")
    try:
        assert container.llm.enabled and container.llm.model == "gpt-4o-mini"
        assert container.llm.complete_text("chat", "s", "u") == "hello"
        with container.llm_units() as uow:
            assert uow.usage.spent_today().tokens > 0
    finally:
        container.close()


def test_without_a_key_the_container_model_is_off(database_url: str, tmp_path: Path) -> None:
    container = build(settings_for_test(tmp_path, database_url, None))

    assert not container.llm.enabled
    assert container.llm.complete_text("chat", "s", "u") is None
