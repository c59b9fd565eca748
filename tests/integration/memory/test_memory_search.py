"""Search: scope isolation, complete results in a large table, and the full-text fallback."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from chalicelib.bootstrap import Container, set_container
from chalicelib.kernel.database import Database
from chalicelib.kernel.schedule_table import SCHEDULES
from chalicelib.memory.adapters.memory_bulk_load import HNSW_INDEX, bulk_load
from chalicelib.memory.adapters.memory_rows import vector
from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.domain.search_scoring import SearchWeights
from chalicelib.memory.services.memory_service import MemoryService
from infra.local.scheduler import run_schedule_once
from tests.fakes.memory_embedders import FailingEmbedder, FixedEmbedder, SlowEmbedder, WordHashEmbedder
from tests.integration.memory.conftest import call, container_with, serving

if TYPE_CHECKING:
    from tests.support.local_stack import TestPostgres

DIM = 384


def _unit(values: list[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


def _near(center: list[float], spread: float, rng: random.Random) -> list[float]:
    return _unit([c + rng.gauss(0, spread) for c in center])


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


# -- scope ------------------------------------------------------------------------------------------


def test_a_project_sees_its_own_and_global_memories_but_never_another_projects(memory: MemoryService) -> None:
    for project in ("alpha", "beta", "_global"):
        for i in range(3):
            content = f"The {project} deploy checklist, step {i}: run the smoke tests."
            memory.remember(MemoryDraft(project=project, category="fact", content=content))
    seen = memory.search("deploy checklist smoke tests", "alpha", limit=20)
    assert {h.project for h in seen.hits} == {"alpha", "_global"} and len(seen.hits) == 6
    alone = memory.search("deploy checklist smoke tests", "alpha", limit=20, include_global=False)
    assert {h.project for h in alone.hits} == {"alpha"}
    for mode in ("text", "vector"):
        assert "beta" not in {h.project for h in memory.search("beta deploy", "alpha", mode=mode).hits}
    assert {h.project for h in memory.search("deploy", "_global", limit=20).hits} == {"_global"}


def test_one_request_fills_the_project_and_global_slots_with_one_query_embedding(
        tmp_path: Path, database_url: str) -> None:
    embedder = WordHashEmbedder()
    container = container_with(tmp_path, database_url, embedder)
    try:
        container.memory.remember_many([
            MemoryDraft(project=project, category="fact", content=f"The {project} release checklist, {i}.")
            for project, count in (("alpha", 5), ("_global", 4), ("beta", 3)) for i in range(count)])
        query = "what is on the release checklist"
        with serving(container) as api:
            status, answer = call(api, "GET", "/api/memory/search", query=query, project="alpha",
                                  project_limit=3, global_limit=2)
            assert call(api, "GET", "/api/memory/search", query=query, project="_global", project_limit=3,
                        global_limit=2)[1]["results"][2]["project"] == "_global"
    finally:
        container.close()
    assert status == 200 and answer["mode"] == "hybrid"
    assert [r["project"] for r in answer["results"]] == ["alpha"] * 3 + ["_global"] * 2
    for scope in (answer["results"][:3], answer["results"][3:]):
        assert [r["score"] for r in scope] == sorted((r["score"] for r in scope), reverse=True)
    assert embedder.seen.count(query) == 2  # once per request, both scopes included


def test_scores_are_between_zero_and_one_and_sorted(memory: MemoryService) -> None:
    texts = ["Use uv for Python installs.", "The staging database is refreshed nightly.",
             "Never commit .env files.", "Telegram topics map one to one onto tasks."]
    memory.remember_many([MemoryDraft(project="s", category="project_rule", content=t) for t in texts])
    for mode in ("hybrid", "text", "vector"):
        hits = memory.search("how do we install python packages", "s", mode=mode).hits  # type: ignore[arg-type]
        scores = [h.score for h in hits]
        assert all(0.0 <= s <= 1.0 for s in scores) and scores == sorted(scores, reverse=True)
    assert memory.search("how do we install python packages", "s").hits[0].content == texts[0]


def test_metadata_filters_narrow_search_and_recent(memory: MemoryService) -> None:
    memory.remember(MemoryDraft(project="m", category="task_lesson", content="Pin the SDK version.",
                                metadata={"kind": "error-handling"}))
    memory.remember(MemoryDraft(project="m", category="task_lesson", content="Pin the database version.",
                                metadata={"kind": "project-selection"}))
    hits = memory.search("pin version", "m", metadata={"kind": "error-handling"}).hits
    assert [h.content for h in hits] == ["Pin the SDK version."]
    assert [m.content for m in memory.recent("m", metadata={"kind": "project-selection"})] == \
        ["Pin the database version."]


# -- completeness in a large table ------------------------------------------------------------------

SIZES = {"big": 10_000, "mid": 2_000, "small": 200}  # 50 %, 10 % and 1 % of 20k rows


@pytest.fixture(scope="module")
def large_table(postgres: TestPostgres, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[tuple[str, dict[str, list[float]], dict[str, list[tuple[str, list[float]]]]]]:
    """20k memories: three projects of 50 %, 10 % and 1 %, and 78 projects of 100 rows."""
    rng = random.Random(7)
    generator = np.random.default_rng(7)
    shared = _unit([rng.gauss(0, 1) for _ in range(DIM)])
    centers = {p: _near(shared, 0.05, rng) for p in (*SIZES, *(f"other{i}" for i in range(78)))}
    rows: dict[str, list[tuple[str, list[float]]]] = {}
    for project, center in centers.items():
        count = SIZES.get(project, 100)
        noisy = np.asarray(center) + generator.normal(0, 0.05, (count, DIM))
        vectors = (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).tolist()
        rows[project] = [(f"memory {i} of {project} about topic {i % 17}", v) for i, v in enumerate(vectors)]
    url = postgres.new_database()
    loader = container_with(tmp_path_factory.mktemp("big"), url, FixedEmbedder({}))
    now = datetime.now(UTC)
    bulk_load(loader.db, (MemoryDraft(p, "fact", text, embedding=v, embedding_model="fixed", created_at=now)
                          for p, items in rows.items() for text, v in items))
    loader.close()
    yield url, centers, rows


@pytest.mark.parametrize("project", ["big", "mid", "small"])
def test_filtered_vector_search_returns_k_results_for_a_project_of_any_size(
        large_table: tuple[str, dict[str, list[float]], dict[str, list[tuple[str, list[float]]]]],
        tmp_path: Path, project: str) -> None:
    url, centers, rows = large_table
    query = _near(centers[project], 0.02, random.Random(11))
    container = container_with(tmp_path, url, FixedEmbedder({"where is it": query}))
    try:
        # The statement alone (`SearchWeights()`: no re-ranking after it), against an exact scan.
        hits = container.memory.search("where is it", project, limit=10, mode="vector",
                                       weights=SearchWeights()).hits
        hybrid = container.memory.search("where is it topic", project, limit=10).hits
    finally:
        container.close()
    assert len(hits) == 10 and {h.project for h in hits} == {project}
    assert len(hybrid) == 10 and {h.project for h in hybrid} == {project}
    exact = [text for text, _ in sorted(rows[project], key=lambda r: -_cosine(query, r[1]))[:10]]
    found = [h.content for h in hits]
    if project == "big":  # approximate index: most of the true top 10, in order of similarity
        assert len(set(found) & set(exact)) >= 8
    else:
        assert found == exact


# -- degrading when the embedder is slow or down ----------------------------------------------------


def _seed(container: Container) -> None:
    container.memory.remember(MemoryDraft(project="f", category="fact",
                                          content="The nightly backup runs at two in the morning."))


def test_a_slow_embedder_degrades_search_to_full_text_and_says_so(tmp_path: Path, database_url: str) -> None:
    container = container_with(tmp_path, database_url, SlowEmbedder(0.6), embedding_timeout_s=0.15)
    try:
        _seed(container)  # the write path waits longer than a search does
        result = container.memory.search("when does the nightly backup run", "f")
        assert result.mode == "text" and result.degraded == "embedding_timeout"
        assert [h.content for h in result.hits] == ["The nightly backup runs at two in the morning."]
        with serving(container) as api:
            status, answer = call(api, "GET", "/api/memory/search", query="nightly backup", project="f")
        assert status == 200 and answer["mode"] == "text" and answer["degraded"] == "embedding_timeout"
        assert len(answer["results"]) == 1
    finally:
        container.close()


def test_a_failing_embedder_still_stores_and_finds_by_text_and_the_scheduled_run_embeds_it_later(
        tmp_path: Path, database_url: str) -> None:
    container = container_with(tmp_path, database_url, FailingEmbedder())
    try:
        _seed(container)
        assert container.memory.stats("f").with_embedding == 0
        result = container.memory.search("nightly backup", "f", mode="vector")
        assert result.mode == "text" and result.degraded == "embedding_error" and len(result.hits) == 1
    finally:
        container.close()
    healed = container_with(tmp_path, database_url, FixedEmbedder({}))
    set_container(healed)
    try:
        [embed_pending] = [spec for spec in SCHEDULES if spec.name == "embed-pending"]
        assert run_schedule_once(embed_pending) == {"embedded": 1, "batches": 1}
        assert run_schedule_once(embed_pending) == {"embedded": 0, "batches": 1}
        assert healed.memory.stats("f").with_embedding == 1
        assert healed.memory.search("nightly backup", "f", mode="vector").mode == "vector"
    finally:
        set_container(None)
        healed.close()


# -- the production pgvector: iterative index scans -------------------------------------------------

_FILTERED_KNN = ("SELECT id FROM memories WHERE project = %(project)s AND embedding IS NOT NULL"
                 " ORDER BY embedding <=> %(vector)s LIMIT 10")


def test_the_embedded_pgvector_scans_iteratively_so_a_selective_filter_still_gets_k_rows(
        large_table: tuple[str, dict[str, list[float]], dict[str, list[tuple[str, list[float]]]]]) -> None:
    """pgvector >= 0.8 as on RDS: without iterative scan a 1 % filter starves a narrow HNSW search.

    The query sits in the largest project's cluster, so the index's nearest rows belong to it.
    """
    url, centers, _ = large_table
    query = vector(_near(centers["big"], 0.02, random.Random(5)))
    params = {"project": "small", "vector": query}
    db = Database(url)
    with db.connection() as conn:
        row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        assert row is not None and tuple(int(p) for p in row["extversion"].split(".")[:2]) >= (0, 8)
        conn.execute("SET hnsw.ef_search = 40")
        conn.execute("SET enable_sort = off")  # the planner would rather sort the project's 200 rows
        plan = "\n".join(r["QUERY PLAN"] for r in conn.execute("EXPLAIN " + _FILTERED_KNN, params).fetchall())
        assert HNSW_INDEX in plan
        starved = conn.execute(_FILTERED_KNN, params).fetchall()
        conn.execute("SET hnsw.iterative_scan = relaxed_order")
        complete = conn.execute(_FILTERED_KNN, params).fetchall()
    db.close()
    assert len(starved) < 10
    assert len(complete) == 10
