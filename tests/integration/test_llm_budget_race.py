"""The daily budget holds under concurrent calls: eight workers asking at once, each with its own
connection pool to the real database, never reserve more than the day allows."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib.kernel.database import Database
from chalicelib.llm.adapters.llm_usage_repository import llm_units
from chalicelib.llm.domain.llm_budget import DailyBudget, cost_usd, estimate_prompt_tokens
from chalicelib.llm.services.budgeted_llm import BudgetedLlm
from chalicelib.llm.services.ports import ChatReply

WORKERS = 8
MAX_TOKENS = 1000
SYSTEM, USER = "Summarise the week.", "Seven sessions, twelve tasks."


class GatedChat:
    """A chat model that answers only once the test opens the gate: every worker has decided by then."""

    model = "gpt-4o-mini"

    def __init__(self, decided: threading.Semaphore) -> None:
        self.decided = decided
        self.gate = threading.Event()

    def chat(self, system: str, user: str, *, schema: dict[str, Any] | None, schema_name: str,
             max_tokens: int, temperature: float) -> ChatReply:
        self.decided.release()
        assert self.gate.wait(60)
        return ChatReply("The week went well.", 20, 10)


@pytest.fixture
def pools(database_url: str) -> Iterator[list[Database]]:
    databases = [Database(database_url, min_size=1, max_size=2) for _ in range(WORKERS)]
    yield databases
    for db in databases:
        db.close()


def test_eight_concurrent_calls_reserve_no_more_than_the_day_allows(pools: list[Database]) -> None:
    worst = cost_usd("gpt-4o-mini", estimate_prompt_tokens(SYSTEM, USER), MAX_TOKENS)
    budget = DailyBudget(usd=worst * 3.5)  # room for three calls' worst case, not four
    decided = threading.Semaphore(0)  # released as each worker reaches the model or is refused
    chat = GatedChat(decided)
    start = threading.Barrier(WORKERS)
    answers: list[str | None] = []

    def worker(db: Database) -> None:
        llm = BudgetedLlm(chat, llm_units(db), budget)
        start.wait()
        answer = llm.complete_text("reflection", SYSTEM, USER, max_tokens=MAX_TOKENS)
        if answer is None:
            decided.release()
        answers.append(answer)

    threads = [threading.Thread(target=worker, args=(db,)) for db in pools]
    for thread in threads:
        thread.start()
    for _ in range(WORKERS):  # no call settles before every worker has reserved or been refused
        assert decided.acquire(timeout=60)
    chat.gate.set()
    for thread in threads:
        thread.join(60)

    with pools[0].connection() as conn:
        rows = conn.execute("SELECT status, reserved_usd FROM llm_usage").fetchall()
    assert sorted(r["status"] for r in rows) == ["ok"] * 3 + ["skipped"] * 5
    assert sum(float(r["reserved_usd"]) for r in rows) <= budget.usd
    assert answers.count("The week went well.") == 3
