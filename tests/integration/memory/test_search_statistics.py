"""The search's statistics snapshot: read once per ANALYZE, never older than the database's, and the
one opening statement that sets every search setting of the transaction."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator

import pytest

from chalicelib.kernel.database import Database
from chalicelib.memory.adapters.memory_unit_of_work import memory_units
from chalicelib.memory.adapters.search_statistics import SearchStatistics
from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.domain.search_scoring import vector_plan
from chalicelib.memory.services.ports import MemoryUnits

PROJECT = "acme/api"
# Postgres's own share of each query term, straight from pg_stats: what the snapshot must agree with.
_SHARES = """
SELECT t.lexeme,
  s.most_common_elem_freqs[array_position(s.most_common_elems::text::text[], t.lexeme)] AS share
FROM unnest(tsvector_to_array(to_tsvector('english', %s))) AS t(lexeme)
CROSS JOIN pg_stats s WHERE s.tablename = 'memories' AND s.attname = 'search_tsv'
"""


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    database = Database(database_url)
    yield database
    database.close()


def store(units: MemoryUnits, contents: list[str]) -> list[str]:
    with units() as uow:
        ids = [uow.memories.insert(MemoryDraft(project=PROJECT, category="fact", content=c))[0]
               for c in contents]
        uow.commit()
    return ids


def test_a_search_after_an_analyze_plans_from_the_new_statistics(db: Database) -> None:
    statistics, units = SearchStatistics(), memory_units(db)
    store(units, [f"Deploy note {n}: the deploy pipeline ran." for n in range(30)])
    query = "deploy kubernetes"
    with db.connection() as conn:
        before = statistics.open_search(conn, query, (PROJECT,), 40, vector=False)
    assert before["term_idfs"] == [1.0, 1.0]  # no ANALYZE yet: every term weighs 1

    store(units, ["Kubernetes runs the staging cluster."])
    with db.connection() as conn:
        conn.execute("ANALYZE memories")
    with db.connection() as conn:  # the snapshot was taken before: the opening statement sees it moved
        after = statistics.open_search(conn, query, (PROJECT,), 40, vector=False)
        expected = {r["lexeme"]: r["share"] for r in conn.execute(_SHARES, (query,)).fetchall()}
    idfs = dict(zip(after["term_tqs"], after["term_idfs"], strict=True))
    assert math.isclose(idfs["'deploy'"], math.log(1 / expected["deploy"]), rel_tol=1e-6)
    assert idfs["'kubernet'"] > idfs["'deploy'"] > 0


def test_the_opening_statement_sets_breadth_iterative_scan_and_no_parallel_workers(db: Database) -> None:
    store(memory_units(db), [f"Fact {n} about the billing service." for n in range(20)])
    statistics = SearchStatistics()
    with db.connection() as conn:
        params = statistics.open_search(conn, "billing", (PROJECT, "_global"), 40, vector=True)
        settings = {name: conn.execute(f"SHOW {name}").fetchone()[name]  # type: ignore[index]
                    for name in ("max_parallel_workers_per_gather", "hnsw.ef_search", "hnsw.iterative_scan")}
    # no ANALYZE yet: the index at the breadth for an unknown share
    assert settings == {"max_parallel_workers_per_gather": "0", "hnsw.iterative_scan": "relaxed_order",
                        "hnsw.ef_search": str(vector_plan(40, None)[1])}
    assert params["ann_0"] and params["ann_1"]
    assert set(params) >= {"ann_0", "ann_1", "term_tqs", "term_idfs", "total_idf", "tq", "tq_all"}
    assert params["tq"] == "'bill'"


def test_counting_an_access_skips_a_memory_whose_delete_commits_meanwhile(db: Database) -> None:
    units = memory_units(db)
    kept, gone = store(units, ["The cache is warmed at boot.", "The old cache key scheme."])
    with db.connection() as deleter:
        deleter.execute("DELETE FROM memories WHERE id = %s", (gone,))  # not committed yet
        done = threading.Event()

        def count() -> None:
            with units() as uow:
                uow.memories.record_access([kept, gone], throttled=False)
                uow.commit()
            done.set()

        counter = threading.Thread(target=count)
        counter.start()
        assert not done.wait(1.0)  # the access waits for the delete to finish
        deleter.commit()
        counter.join(timeout=60)
    assert done.is_set()
    with db.connection() as conn:
        rows = conn.execute("SELECT memory_id::text AS id, access_count FROM memory_access").fetchall()
    assert [(r["id"], r["access_count"]) for r in rows] == [(kept, 1)]
