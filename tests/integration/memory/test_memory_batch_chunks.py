"""A batch written chunk by chunk while its next chunk is embedded: the decisions, the one
transaction, the degraded embeddings and the deadlock retry of a batch written whole."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from psycopg.rows import dict_row

from chalicelib.memory.adapters.memory_repository import PostgresMemoryRepository
from chalicelib.memory.domain.memory_hygiene import clean
from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.services.memory_service import MemoryService
from tests.conftest import RunningApi
from tests.fakes.memory_embedders import WordHashEmbedder
from tests.integration.memory.conftest import call, container_with
from tests.support.orchestration import wait_for


def _fact(text: str, category: str = "project_rule") -> MemoryDraft:
    return MemoryDraft(project="d", category=category, content=text)


def _with_embedding(memory: MemoryService) -> int:
    return memory.stats("d").with_embedding


FILLERS = ["Deploys go out on Thursdays after the standup.", "The staging database is rebuilt every night.",
           "Code review needs two approvals on the payments service."]


def test_a_later_chunks_rewording_of_an_earlier_draft_is_reinforced_not_inserted_twice(
        memory: MemoryService) -> None:
    memory.store.chunk = 2
    results = memory.remember_many([_fact("The API timeout is 30 seconds."), _fact(FILLERS[0]),
                                    _fact(FILLERS[1]), _fact("The timeout of the API is 30 seconds."),
                                    _fact("  the API timeout is 30   seconds. ")])

    assert [(r.deduplicated, r.duplicate_kind) for r in results] == [
        (False, None), (False, None), (False, None), (True, "near"), (True, "exact")]
    assert results[3].id == results[4].id == results[0].id
    assert memory.get(results[0].id).times_reinforced == 3
    assert memory.stats("d").total == 3


class TroubleOnCall(WordHashEmbedder):
    """Its `call`-th call (1-based) fails, or answers vectors the column refuses (3 dimensions)."""

    def __init__(self, call: int, trouble: str) -> None:
        super().__init__()
        self.call = call
        self.trouble = trouble

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = super().embed(texts)
        if len(self.calls) != self.call:
            return vectors
        if self.trouble == "fails":
            raise RuntimeError("backend down")
        return [v[:3] for v in vectors]


class HeldAfterFirst(WordHashEmbedder):
    """Answers its first call; every later call waits until `release` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self.calls:
            self.release.wait(60)
        return super().embed(texts)


@pytest.mark.parametrize("trouble", ["fails", "misses the deadline"])
def test_when_the_embedder_fails_mid_batch_the_rest_is_stored_without_vectors_and_embedded_later(
        tmp_path: Path, database_url: str, trouble: str) -> None:
    embedder = TroubleOnCall(2, "fails") if trouble == "fails" else HeldAfterFirst()
    container = container_with(tmp_path, database_url, embedder)
    memory = container.memory
    memory.store.chunk = 2
    if isinstance(embedder, HeldAfterFirst):
        memory.store.write_timeout_s = 3.0  # the first chunk is in at once; the second waits for the test
    try:
        texts = [*FILLERS, "The nightly backup runs at two.", "Logs are kept for 14 days."]
        results = memory.remember_many([_fact(t) for t in texts])
        if isinstance(embedder, HeldAfterFirst):
            embedder.release.set()

        assert not any(r.deduplicated for r in results) and memory.stats("d").total == 5
        assert _with_embedding(memory) == 2  # the first chunk's
        assert memory.embed_pending() == 3 and _with_embedding(memory) == 5
    finally:
        container.close()


def test_a_batch_that_fails_in_its_last_chunk_keeps_none_of_its_earlier_chunks(
        tmp_path: Path, database_url: str) -> None:
    container = container_with(tmp_path, database_url, TroubleOnCall(3, "wrong size"))
    memory = container.memory
    memory.store.chunk = 2
    try:
        with pytest.raises(psycopg.Error):
            memory.remember_many([_fact(t) for t in [*FILLERS, "The nightly backup runs at two.",
                                                     "Logs are kept for 14 days."]])

        assert memory.stats("d").total == 0
    finally:
        container.close()


def test_a_batch_that_loses_a_deadlock_is_written_again_without_being_embedded_again(
        tmp_path: Path, database_url: str) -> None:
    embedder = WordHashEmbedder()
    container = container_with(tmp_path, database_url, embedder)
    memory = container.memory
    memory.store.chunk = 1
    known = memory.remember(_fact("The nightly backup runs at two."))
    calls = len(embedder.calls)
    new = _fact(FILLERS[0])
    try:
        with psycopg.connect(database_url, row_factory=dict_row) as rival, ThreadPoolExecutor(1) as pool:
            rival.execute("SET deadlock_timeout = '10min'")  # the batch's session finds the deadlock
            rival.execute("SELECT 1 FROM memories WHERE id = %s FOR UPDATE", (known.id,))
            batch = pool.submit(memory.remember_many, [new, _fact("The nightly backup runs at two.")])
            wait_for(lambda: _waiting_on_a_lock(database_url, "UPDATE memories SET times_reinforced = "
                                                              "times_reinforced + 1%"),
                     timeout_s=60, what="the batch to wait for the reinforced row")
            # The rival now inserts the batch's first text: each waits for the other; the batch gives way.
            rival_id, _ = PostgresMemoryRepository(rival).insert(clean(new))
            rival.commit()
            results = batch.result(timeout=120)

        assert [(r.id, r.deduplicated, r.duplicate_kind) for r in results] == [
            (rival_id, True, "exact"), (known.id, True, "exact")]
        assert len(embedder.calls) == calls + 2  # one call per chunk, none for the retry
        assert memory.get(known.id).times_reinforced == 2
        assert memory.get(rival_id).times_reinforced == 2
    finally:
        container.close()


def _waiting_on_a_lock(database_url: str, query: str) -> bool:
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                           " AND query LIKE %s", (query,)).fetchone()
    return bool(row and row[0])


def test_posting_a_chunked_batch_again_returns_the_same_ids_and_stores_nothing_new(api: RunningApi) -> None:
    api.container.memory.store.chunk = 2
    batch = {"memories": [{"project": "d", "category": "fact", "content": t}
                          for t in [*FILLERS, "The nightly backup runs at two.", FILLERS[0]]]}

    status, first = call(api, "POST", "/api/memory/batch", batch)
    again_status, again = call(api, "POST", "/api/memory/batch", batch)

    assert (status, again_status) == (201, 201)
    assert first["deduplicated"] == [False, False, False, False, True]
    assert first["ids"][4] == first["ids"][0]
    assert again["ids"] == first["ids"] and all(again["deduplicated"])
    assert api.container.memory.stats("d").total == 4
