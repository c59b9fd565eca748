"""The hybrid search statement in process on a kept `bench/scale.py` database: timings and plans.

    .venv/bin/python bench/search_plans.py --home DIR [--queries 100] [--explain]
                                           [--projects acme/large acme/p0007]

Attaches to the embedded Postgres of a home that `bench/scale.py --home DIR` loaded (the server
need not run), then runs the server's own search statement (`PostgresMemorySearch`, limit 10,
project + `_global`) for each project and mode: a new question every time, and as query
vector the stored vector of a random memory of the project (no model needed, so the figures
are the database's alone). Prints p50 / p95 and, with `--explain`, one EXPLAIN (ANALYZE,
BUFFERS) per project and mode: the plan that shows whether each side reads only the scope.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

from memory_api import ROOT, percentile
from scale import QUESTIONS, text

sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--projects", nargs="+", default=["acme/large", "acme/p0007"])
    parser.add_argument("--modes", nargs="+", default=["hybrid", "text"])
    parser.add_argument("--explain", action="store_true")
    args = parser.parse_args()

    from chalicelib.kernel.database import Database
    from chalicelib.memory.adapters.memory_search import PostgresMemorySearch, build_statement
    from chalicelib.memory.adapters.search_statistics import SearchStatistics
    from chalicelib.memory.domain.memory_model import SearchScope
    from chalicelib.memory.domain.search_scoring import SearchWeights, candidate_pool
    from infra.local.postgres import start_postgres

    handle, url = start_postgres(args.home)
    db, features, rng = Database(url), SearchStatistics(), random.Random(5)
    try:
        for project in args.projects:
            scope = SearchScope((project, "_global"))
            with db.connection() as conn:
                vectors = [r["embedding"] for r in conn.execute(
                    "SELECT embedding::text AS embedding FROM memories WHERE project = %s"
                    " AND embedding IS NOT NULL LIMIT 200", (project,)).fetchall()]
            for mode in args.modes:
                times = []
                for i in range(20 + args.queries):
                    query = f"{text(rng, rng.choice(QUESTIONS), i)} ({i})"
                    vector = [float(x) for x in rng.choice(vectors).strip("[]").split(",")]
                    with db.connection() as conn:
                        started = time.perf_counter()
                        hits = PostgresMemorySearch(conn, features).search(
                            query, vector, scope, mode=mode, limit=10, weights=SearchWeights())
                        if i >= 20:  # after a warm-up
                            times.append((time.perf_counter() - started) * 1000)
                    assert hits, (project, mode, query)
                print(f"{project} {mode}: p50 {percentile(times, 50):.1f} ms,"
                      f" p95 {percentile(times, 95):.1f} ms, max {max(times):.1f} ms, {len(times)} queries",
                      flush=True)
                if args.explain:
                    explain(db, features, scope, mode, query, vector, candidate_pool(10), build_statement)
    finally:
        db.close()
        handle.cleanup()
    return 0


def explain(db: object, features: object, scope: object, mode: str, query: str, vector: list[float],
            pool: int, build_statement: object) -> None:
    from chalicelib.memory.adapters.memory_search import PostgresMemorySearch
    from chalicelib.memory.domain.search_scoring import SearchWeights

    with db.connection() as conn:  # type: ignore[attr-defined]
        search = PostgresMemorySearch(conn, features)  # type: ignore[arg-type]
        params = search.parameters(query, vector, scope, pool=pool, limit=10,  # type: ignore[arg-type]
                                   weights=SearchWeights())
        params.update(search.open(query, scope, pool, mode))  # type: ignore[arg-type]
        statement = "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + build_statement(mode, scope)  # type: ignore[operator]
        rows = conn.execute(statement, params, prepare=False).fetchall()
    plan = "\n".join(str(next(iter(r.values()))) for r in rows)
    print(re.sub(r"'\[[-0-9.e,]+\]'::vector", "$vector", plan), flush=True)


if __name__ == "__main__":
    sys.exit(main())
