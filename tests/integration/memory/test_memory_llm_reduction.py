"""With an OpenAI key, eviction asks the model for hints (real openai client, fake OpenAI server,
real Postgres): the model's text is stored, the call is counted by purpose, and a refused call
falls back to the deterministic reduction instead of stalling the run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.bootstrap import Container
from chalicelib.memory.domain.memory_lifecycle import HINT
from chalicelib.memory.domain.memory_model import Memory
from chalicelib.memory.domain.memory_reduction import hint
from tests.fakes.fake_embedder import WordEmbedder
from tests.fakes.fake_openai import CHAT_PATH, FakeOpenAI
from tests.integration.memory.lifecycle_support import LONG, start_sessions, store, use
from tests.support.local_stack import make_container, settings_for_test

MODEL_HINT = "Session cache moved memcached -> Redis 7.2 on 2026-03-14 (cache01.prod fell over)."


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def keyed_container(tmp_path: Path, database_url: str, fake: FakeOpenAI) -> Container:
    settings = settings_for_test(tmp_path / "home", database_url, None, memory_budget=1)
    c = make_container(settings.replace(openai_api_key="sk-test", openai_base_url=fake.base_url,
                                        embedding_provider="local"), with_queues=False)
    c.embedder = WordEmbedder()
    return c


def usage(container: Container, purpose: str) -> list[dict]:
    with container.db.connection() as conn:
        return conn.execute("SELECT status FROM llm_usage WHERE purpose = %s ORDER BY id",
                            (purpose,)).fetchall()


def evict_the_long_note(c: Container) -> Memory:
    """Store a short, often-read note and LONG; one eviction run moves LONG (only) to a hint."""
    kept = store(c, "p", "Deploys go through the staging stack first.")
    old = store(c, "p", LONG)
    use(c, kept, 5)
    start_sessions(c, "p", 2)
    assert c.memory_eviction.run("week-1").advanced == 1
    return c.memory.get(old, record_access=False)


def test_a_hint_comes_from_the_model_when_a_key_is_set_and_is_counted_by_purpose(
        tmp_path: Path, database_url: str, fake: FakeOpenAI) -> None:
    c = keyed_container(tmp_path, database_url, fake)
    fake.script_chat(f'{{"text": "{MODEL_HINT}"}}')
    memory = evict_the_long_note(c)
    assert memory.phase == HINT and memory.content.startswith(MODEL_HINT)
    (request,) = fake.requests_to(CHAT_PATH)
    assert "Redis 7.2" in request["messages"][-1]["content"]
    assert [row["status"] for row in usage(c, "memory_reduction")] == ["ok"]
    c.close()


def test_a_refused_model_call_falls_back_to_the_deterministic_hint(
        tmp_path: Path, database_url: str, fake: FakeOpenAI) -> None:
    c = keyed_container(tmp_path, database_url, fake)
    fake.script_chat_error(400, {"error": {"message": "Invalid prompt: flagged by the usage policy",
                                           "type": "invalid_request_error", "param": "messages",
                                           "code": "invalid_prompt"}})
    memory = evict_the_long_note(c)
    assert memory.phase == HINT and memory.content.startswith(hint(LONG).split(" [")[0])
    assert fake.requests_to(CHAT_PATH), "the model was asked first"
    assert [row["status"] for row in usage(c, "memory_reduction")] == ["rejected"]
    c.close()
