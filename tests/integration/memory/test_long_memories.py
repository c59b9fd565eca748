"""A long memory is searched whole: its overlapping windows are embedded and the best one counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from chalicelib.memory.domain.memory_model import MemoryDraft, chunk_texts
from chalicelib.memory.domain.search_scoring import SearchWeights
from tests.fakes.memory_embedders import FixedEmbedder
from tests.integration.memory.conftest import container_with

DIM = 384
FILLER = " ".join(f"The handler step {i} validates its input and logs the request id." for i in range(60))
LONG = FILLER + " Finally: the staging database runs Postgres 16 with pgvector."
QUERY = "which database version does staging use"


def basis(i: int) -> list[float]:
    return [1.0 if j == i else 0.0 for j in range(DIM)]


def test_a_fact_deep_inside_a_long_memory_is_found_by_its_best_window(
        tmp_path: Path, database_url: str) -> None:
    windows = chunk_texts(LONG)
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
    finally:
        container.close()
