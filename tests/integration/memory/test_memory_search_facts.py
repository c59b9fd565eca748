"""With a language model configured, the facts it states about a memory join that memory's search key
(real Postgres, the real openai client talking to the fake OpenAI server, the `search-facts` schedule
run as the local scheduler runs it)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.bootstrap import Container, set_container
from chalicelib.kernel.schedule_table import SCHEDULES
from chalicelib.memory.domain.search_keys import MAX_KEY_CHARS, search_key
from chalicelib.memory.services.search_facts import MAX_TRIES, PURPOSE
from infra.local.scheduler import run_schedule_once
from tests.fakes.fake_embedder import WordEmbedder
from tests.fakes.fake_openai import CHAT_PATH, FakeOpenAI
from tests.integration.memory.lifecycle_support import store
from tests.support.local_stack import make_container, settings_for_test

[SEARCH_FACTS] = [spec for spec in SCHEDULES if spec.name == "search-facts"]
REPLY = "Yes! We finally got there last weekend, the view from the top was worth every step."
FACT = "Climbed Mount Kilimanjaro in Tanzania with her sister"
QUESTION = "Kilimanjaro Tanzania"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def model_container(tmp_path: Path, database_url: str, fake: FakeOpenAI | None, **settings: Any) -> Container:
    base = settings_for_test(tmp_path / "home", database_url, None, **settings)
    if fake is not None:
        base = base.replace(openai_api_key="sk-test", openai_base_url=fake.base_url)
    c = make_container(base.replace(embedding_provider="local"), with_queues=False)
    c.embedder = WordEmbedder()
    return c


Models = Callable[..., Container]


@pytest.fixture
def model(tmp_path: Path, database_url: str) -> Iterator[Models]:
    """Containers on the test's database, talking to `fake` (None: no model configured), each closed
    after the test."""
    made: list[Container] = []

    def make(fake: FakeOpenAI | None, **settings: Any) -> Container:
        made.append(model_container(tmp_path, database_url, fake, **settings))
        return made[-1]

    yield make
    for c in made:
        c.close()


def facts_answer(*notes: list[Any]) -> str:
    return json.dumps({"notes": [{"note": n, "facts": facts} for n, facts in enumerate(notes, 1)]})


def run_worker(c: Container) -> dict[str, int]:
    set_container(c)
    try:
        return run_schedule_once(SEARCH_FACTS)  # type: ignore[return-value]
    finally:
        set_container(None)


def keys(c: Container) -> dict[str, tuple[str, str, bool]]:
    """Each memory's (search key, facts, marked done) by content."""
    with c.db.connection() as conn:
        rows = conn.execute("SELECT content, search_key, search_facts, search_facts_at IS NOT NULL AS done"
                            " FROM memories").fetchall()
    return {r["content"]: (r["search_key"], r["search_facts"], r["done"]) for r in rows}


def tries(c: Container) -> dict[str, int]:
    """Each memory's counted failed passes, by content."""
    with c.db.connection() as conn:
        rows = conn.execute("SELECT content, search_facts_tries FROM memories").fetchall()
    return {r["content"]: r["search_facts_tries"] for r in rows}


def model_free_key(c: Container, content: str) -> str:
    with c.db.connection() as conn:
        [row] = conn.execute("SELECT created_at FROM memories WHERE content = %s", (content,)).fetchall()
    return search_key(content, row["created_at"])


def found(c: Container, question: str) -> list[str]:
    return [hit.content for hit in c.memory.search(question, "p", mode="text").hits]



def test_a_memory_is_found_by_a_question_naming_what_only_the_models_fact_says(
        model: Models, fake: FakeOpenAI) -> None:
    c = model(fake)
    store(c, "p", REPLY)
    assert found(c, QUESTION) == []
    fake.script_chat(facts_answer([FACT]))

    assert run_worker(c) == {"keyed": 1, "facts": 1, "calls": 1, "left": 0}

    assert found(c, QUESTION) == [REPLY]
    key, facts, done = keys(c)[REPLY]
    assert done and facts == FACT and key == f"{model_free_key(c, REPLY)} {FACT}"
    (request,) = fake.requests_to(CHAT_PATH)
    assert REPLY in request["messages"][-1]["content"]


def test_a_rerun_appends_nothing_and_asks_the_model_nothing(
        model: Models, fake: FakeOpenAI) -> None:
    c = model(fake)
    store(c, "p", REPLY)
    fake.script_chat(facts_answer([FACT]))
    run_worker(c)
    before = keys(c)
    fake.script_chat(facts_answer(["Went hiking"]))

    assert run_worker(c) == {"keyed": 0, "facts": 0, "calls": 0, "left": 0}

    assert keys(c) == before and len(fake.requests_to(CHAT_PATH)) == 1


def test_over_the_days_budget_nothing_is_marked_and_a_later_run_with_budget_keys_it(
        model: Models, fake: FakeOpenAI) -> None:
    poor = model(fake, llm_daily_budget_usd=0.000001)
    store(poor, "p", REPLY)
    fake.script_chat(facts_answer([FACT]))
    assert run_worker(poor) == {"keyed": 0, "facts": 0, "calls": 1, "left": 1}
    assert keys(poor)[REPLY][1:] == ("", False) and fake.requests_to(CHAT_PATH) == []
    assert tries(poor) == {REPLY: 0}  # no call was answered: the budget, not the memory, failed
    funded = model(fake)
    assert run_worker(funded)["keyed"] == 1
    assert keys(funded)[REPLY][1:] == (FACT, True) and found(funded, QUESTION) == [REPLY]
    with funded.db.connection() as conn:
        statuses = conn.execute("SELECT status FROM llm_usage WHERE purpose = %s", (PURPOSE,)).fetchall()
    assert [r["status"] for r in statuses] == ["skipped", "ok"]


def test_without_a_model_nothing_changes(model: Models) -> None:
    c = model(None)
    store(c, "p", REPLY)
    before = keys(c)
    assert run_worker(c) == {"keyed": 0, "facts": 0, "calls": 0, "left": 0}
    assert keys(c) == before and before[REPLY][1:] == ("", False)


def test_the_key_never_exceeds_its_cap_and_the_models_text_is_cleaned_and_redacted(
        model: Models, fake: FakeOpenAI) -> None:
    c = model(fake)
    long_memory = " ".join(f"step_{i}_done" for i in range(10, 460))  # a model-free key near the cap
    secret = "sk-proj-" + "a1B2c3D4e5" * 4
    store(c, "p", long_memory)
    store(c, "p", REPLY)
    fake.script_chat(facts_answer(
        [f"Finished step {i} of the migration" for i in range(40)],
        [f"Uses the key {secret}", 42, {"a": 1}, "Summit\x00 reached\x1b[31m at dawn", "x" * 500, FACT]))

    run_worker(c)

    stored = keys(c)
    assert all(len(key) <= MAX_KEY_CHARS for key, _, _ in stored.values())
    long_key, long_facts, done = stored[long_memory]
    assert done and long_key == f"{model_free_key(c, long_memory)} {long_facts}"
    assert 0 < long_facts.count("Finished step") < 12  # whole facts, as many as fit
    reply_key, reply_facts, _ = stored[REPLY]
    assert secret not in reply_key and "[REDACTED:api_key]" in reply_key
    assert "Summit reached [31m at dawn" in reply_facts
    assert "\x00" not in reply_key and "\x1b" not in reply_key
    assert "42" not in reply_facts.split() and "x" * 200 not in reply_facts and FACT in reply_facts


def test_a_rewritten_memory_gets_the_models_facts_again_in_place_of_the_old_ones(
        model: Models, fake: FakeOpenAI) -> None:
    c = model(fake)
    memory_id = store(c, "p", REPLY)
    fake.script_chat(facts_answer([FACT]))
    run_worker(c)
    model_free = keys(c)[REPLY][0].removesuffix(" " + FACT)
    rewritten = REPLY + " We took the Machame route."
    c.memory.update_content(memory_id, rewritten)
    assert keys(c)[rewritten][2] is False
    fake.script_chat(facts_answer(["Climbed Kilimanjaro by the Machame route"]))

    assert run_worker(c)["keyed"] == 1

    key, facts, done = keys(c)[rewritten]
    assert done and key == f"{model_free} {facts}" and facts == "Climbed Kilimanjaro by the Machame route"
    assert found(c, "Tanzania") == [] and found(c, "Kilimanjaro Machame") == [rewritten]


def test_a_memory_the_model_fails_on_waits_without_holding_back_the_ones_after_it(
        model: Models, fake: FakeOpenAI) -> None:
    c = model(fake, search_facts_per_call=1)
    store(c, "p", "A note the model cannot answer about")
    store(c, "p", REPLY)
    fake.script_chat("not json at all")
    fake.script_chat(facts_answer([FACT]))

    assert run_worker(c) == {"keyed": 1, "facts": 1, "calls": 2, "left": 1}

    assert keys(c)["A note the model cannot answer about"][1:] == ("", False)
    assert keys(c)[REPLY][1:] == (FACT, True) and found(c, QUESTION)[0] == REPLY  # then its neighbour


def test_a_memory_the_model_fails_on_does_not_hold_back_the_ones_asked_with_it(
        model: Models, fake: FakeOpenAI) -> None:
    c = model(fake, search_facts_per_call=2)
    store(c, "p", "A note the model cannot answer about")
    store(c, "p", REPLY)
    store(c, "p", "A third note")
    fake.script_chat("not json at all")  # the first two asked together: no answer for either
    fake.script_chat(facts_answer(["The third note's fact"]))  # the model answers the next call

    assert run_worker(c) == {"keyed": 1, "facts": 1, "calls": 2, "left": 2}

    store(c, "p", "A note written after the failed call")
    fake.script_chat(facts_answer(["Written after the failure"]))  # a fresh note goes first, in a group
    fake.script_chat("not json again")  # then each note asked before goes alone
    fake.script_chat(facts_answer([FACT]))

    assert run_worker(c) == {"keyed": 2, "facts": 2, "calls": 3, "left": 1}

    assert keys(c)["A note the model cannot answer about"][1:] == ("", False)
    assert keys(c)["A note written after the failed call"][1:] == ("Written after the failure", True)
    assert keys(c)[REPLY][1:] == (FACT, True) and found(c, QUESTION)[0] == REPLY
    prompts = [r["messages"][-1]["content"] for r in fake.requests_to(CHAT_PATH)]
    assert [p.count("Note ") for p in prompts] == [2, 1, 1, 1, 1]


def test_a_memory_the_model_failed_on_three_times_while_it_answered_others_is_asked_no_more(
        model: Models, fake: FakeOpenAI) -> None:
    c = model(fake, search_facts_per_call=1)
    poison = "A note the model cannot answer about"
    store(c, "p", poison)
    for run in range(MAX_TRIES):
        store(c, "p", f"Note {run} written later")
        answers = [facts_answer([f"Fact of note {run}"]), "not json at all"]
        for answer in answers if run else reversed(answers):  # never asked: the older first; then after
            fake.script_chat(answer)
        assert run_worker(c) == {"keyed": 1, "facts": 1, "calls": 2, "left": 1}
    assert tries(c)[poison] == MAX_TRIES

    store(c, "p", "The last note")
    fake.script_chat(facts_answer(["Fact of the last note"]))
    calls = len(fake.requests_to(CHAT_PATH))

    assert run_worker(c) == {"keyed": 1, "facts": 1, "calls": 1, "left": 0}

    assert len(fake.requests_to(CHAT_PATH)) == calls + 1
    key, facts, done = keys(c)[poison]
    assert (key, facts, done) == (model_free_key(c, poison), "", False)  # it keeps its model-free key
