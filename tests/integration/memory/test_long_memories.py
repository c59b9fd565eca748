"""A long memory is searched whole: its overlapping windows are embedded and the best one counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from chalicelib.bootstrap import Container
from chalicelib.memory.domain.memory_model import MAX_WINDOWS, MemoryDraft
from chalicelib.memory.domain.search_scoring import SearchWeights
from chalicelib.memory.services.memory_store import windows_of
from tests.fakes.memory_embedders import FixedEmbedder, TokenCountingEmbedder
from tests.integration.memory.conftest import container_with

DIM = 384
FILLER = " ".join(f"The handler step {i} validates its input and logs the request id." for i in range(60))
LONG = FILLER + " Finally: the staging database runs Postgres 16 with pgvector."
QUERY = "which database version does staging use"


def basis(i: int) -> list[float]:
    return [1.0 if j == i else 0.0 for j in range(DIM)]


def test_a_fact_deep_inside_a_long_memory_is_found_by_its_best_window(
        tmp_path: Path, database_url: str) -> None:
    windows = windows_of(FixedEmbedder({}), MemoryDraft("w", "conversation", LONG)).chunk_texts
    assert len(windows) > 2 and "Postgres 16" in windows[-1] and "Postgres 16" not in LONG[:1000]
    vectors = {LONG: basis(1), QUERY: basis(7), windows[-1]: basis(7),
               "A short note on the queue": basis(2)}
    container = container_with(tmp_path, database_url, FixedEmbedder(vectors))
    try:
        long = container.memory.remember(MemoryDraft("w", "conversation", LONG))
        short = container.memory.remember(MemoryDraft("w", "conversation", "A short note on the queue"))

        hits = container.memory.search(QUERY, "w", mode="vector", weights=SearchWeights(recency=0)).hits

        assert hits[0].id == long.id and hits[0].score == pytest.approx(1.0, abs=1e-4)
        assert {h.id: h.score for h in hits}[short.id] == pytest.approx(0.0, abs=1e-4)
        with container.db.connection() as conn:
            stored = conn.execute("SELECT count(*) AS n FROM memory_chunks WHERE memory_id = %s",
                                  (long.id,)).fetchone()
            none = conn.execute("SELECT count(*) AS n FROM memory_chunks WHERE memory_id = %s",
                                (short.id,)).fetchone()
        assert stored is not None and stored["n"] == len(windows) and none is not None and none["n"] == 0
        container.memory.update_content(long.id, "Staging runs Postgres 17 now.")
        with container.db.connection() as conn:
            left = conn.execute("SELECT count(*) AS n FROM memory_chunks WHERE memory_id = %s",
                                (long.id,)).fetchone()
        assert left is not None and left["n"] == 0  # the old wording's windows went with it
        container.memory.update_content(long.id, LONG.replace("Postgres 16", "Postgres 17"))
        assert stored_windows(container, long.id) == len(windows)  # a long new wording: its own
    finally:
        container.close()


def stored_windows(container: Container, memory_id: str) -> int:
    with container.db.connection() as conn:
        row = conn.execute("SELECT count(*) AS n FROM memory_chunks WHERE memory_id = %s",
                           (memory_id,)).fetchone()
    assert row is not None
    return int(row["n"])


def words(n: int, tag: str) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def test_a_batch_of_long_memories_embeds_every_window_in_one_call_and_only_past_the_models_tokens(
        tmp_path: Path, database_url: str) -> None:
    embedder = TokenCountingEmbedder(max_tokens=40)
    # Punctuation counts as tokens: 30 words with a comma each are 60 tokens, a window's worth
    # past the model's 40, though 30 words alone would fit.
    punctuated = ", ".join(f"alpha{i}" for i in range(30)) + ","
    fits = words(40, "beta")  # exactly what the model reads: no window
    just_over = words(41, "gamma")  # one token past it: one window holding the tail
    huge = words(1_000, "delta") + " the rollback password rotates monthly"
    container = container_with(tmp_path, database_url, embedder)
    try:
        results = container.memory.remember_many(
            [MemoryDraft("w", "conversation", text) for text in (punctuated, fits, just_over, huge, "short")],
            near_dedup=False)

        assert len(embedder.calls) == 1  # every text and window of the batch in one model call
        counts = [stored_windows(container, r.id) for r in results]
        assert counts == [1, 0, 1, MAX_WINDOWS, 0]
        assert len(embedder.calls[0]) == 5 + sum(counts)
        assert "gamma40" in embedder.calls[0][5 + 1] and "alpha29" in embedder.calls[0][5]
        # Past the last window, full-text search still finds the end of a very long memory.
        hits = container.memory.search("rollback password rotates", "w", mode="text").hits
        assert hits and hits[0].id == results[3].id
    finally:
        container.close()


def test_a_long_memory_imported_or_embedded_again_is_still_found_by_its_best_window(
        tmp_path: Path, database_url: str) -> None:
    windows = windows_of(FixedEmbedder({}), MemoryDraft("w", "conversation", LONG)).chunk_texts
    container = container_with(tmp_path, database_url,
                               FixedEmbedder({LONG: basis(1), QUERY: basis(7), windows[-1]: basis(7)}))

    def best() -> tuple[str, float]:
        hit = container.memory.search(QUERY, "w", mode="vector", weights=SearchWeights(recency=0)).hits[0]
        return hit.id, hit.score

    try:
        long = container.memory.remember(MemoryDraft("w", "conversation", LONG))
        assert best() == (long.id, pytest.approx(1.0, abs=1e-4))
        records = container.memory_transfer.export_page("w", None, 10)
        with container.db.connection() as conn:  # a fresh store: `itachi import` of an export
            conn.execute("DELETE FROM memories")

        container.memory_transfer.import_batch(records)

        assert stored_windows(container, long.id) == len(windows)
        assert best() == (long.id, pytest.approx(1.0, abs=1e-4))
        with container.db.connection() as conn:  # a vector lost (`itachi memory check --fix` embeds it)
            conn.execute("UPDATE memories SET embedding = NULL")
            conn.execute("DELETE FROM memory_chunks")

        container.memory_integrity.fix("w")

        assert stored_windows(container, long.id) == len(windows)
        assert best() == (long.id, pytest.approx(1.0, abs=1e-4))
    finally:
        container.close()
