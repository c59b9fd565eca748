"""What the full-text index's pending list costs searches and saves inserts, at two limits.

    .venv/bin/python bench/gin_pending_list.py --home DIR [--rows 5000] [--limits 4096 256]
                                               [--rounds 2] [--queries 100]

Attaches to the embedded Postgres of a home that `bench/scale.py --home DIR` loaded (the server
need not run). For each limit in turn (`gin_pending_list_limit` of `memories_search_tsv`, kB),
`--rounds` times, alternating: VACUUM (an empty pending list), insert `--rows` new memories
(500 per multi-row INSERT, no vectors, so only the btree and GIN indexes are paid for) and time
the inserts, read the table once (the new rows' hint bits), then time text-mode searches (the
server's statement, `acme/large` + `_global`) with whatever the inserts left in the pending
list, and delete the rows again. At the end the index gets the limit migration 0146 sets.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path
from typing import Any

from memory_api import ROOT, percentile
from scale import QUESTIONS, TEMPLATES, text

sys.path.insert(0, str(ROOT))

PROJECT = "acme/pending-list-bench"
SHIPPED_KB = 256
_INSERT = ("INSERT INTO memories (project, category, content, content_hash) SELECT %s, 'code_change', c, h"
           " FROM unnest(%s::text[], %s::text[]) AS t(c, h)")


def insert(conn: Any, rng: random.Random, first: int, rows: int) -> float:
    """Seconds to insert `rows` new memories, 500 per statement."""
    started = time.perf_counter()
    for start in range(first, first + rows, 500):
        texts = [f"{text(rng, rng.choice(TEMPLATES), 20_000_000 + n)} (pl {n})"
                 for n in range(start, start + 500)]
        hashes = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
        conn.execute(_INSERT, (PROJECT, texts, hashes))
    return time.perf_counter() - started


def searches(conn: Any, rng: random.Random, statistics: Any, count: int, tag: str) -> list[float]:
    """Milliseconds of each of `count` new text-mode searches of `acme/large` + `_global`."""
    from chalicelib.memory.adapters.memory_search import PostgresMemorySearch
    from chalicelib.memory.domain.memory_model import SearchScope
    from chalicelib.memory.domain.search_scoring import SearchWeights

    times = []
    for i in range(count):
        query = f"{text(rng, rng.choice(QUESTIONS), i)} ({tag}-{i})"
        with conn.transaction():
            began = time.perf_counter()
            PostgresMemorySearch(conn, statistics).search(query, None, SearchScope(("acme/large", "_global")),
                                                          mode="text", limit=10, weights=SearchWeights())
            times.append((time.perf_counter() - began) * 1000)
    return times


def set_limit(conn: Any, kb: int) -> None:
    conn.execute(f"ALTER INDEX memories_search_tsv SET (gin_pending_list_limit = {int(kb)})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--limits", type=int, nargs="+", default=[4096, SHIPPED_KB])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()

    import psycopg
    from psycopg.rows import dict_row

    from chalicelib.memory.adapters.search_statistics import SearchStatistics
    from infra.local.postgres import start_postgres

    handle, url = start_postgres(args.home)
    rng, statistics, inserted = random.Random(11), SearchStatistics(), 0
    try:
        with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
            for round_ in range(1, args.rounds + 1):
                for kb in args.limits:
                    set_limit(conn, kb)
                    conn.execute("VACUUM memories")
                    seconds = insert(conn, rng, inserted, args.rows)
                    inserted += args.rows
                    conn.execute("SELECT count(*) FROM memories")  # sets the new rows' hint bits
                    times = searches(conn, rng, statistics, args.queries, f"{round_}-{kb}")
                    print(f"round {round_}, limit {kb} kB: {args.rows} inserts in {seconds:.2f} s"
                          f" ({args.rows / seconds:.0f}/s); then text search"
                          f" p50 {percentile(times, 50):.1f} ms, p95 {percentile(times, 95):.1f} ms",
                          flush=True)
                    conn.execute("DELETE FROM memories WHERE project = %s", (PROJECT,))
            set_limit(conn, SHIPPED_KB)
            conn.execute("VACUUM ANALYZE memories")
    finally:
        handle.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
