"""The graph fast path's SQL, before and after its vector searches became one statement, A/B.

    .venv/bin/python bench/graph_fast_statements.py [--nodes 10000] [-n 200]

Seeds one project's graph as `bench/graph_latency.py` does (heuristic extractor, local MiniLM
vectors) in an embedded Postgres, copies the database and drops the instructions' partial HNSW
index from the copy (the schema before migration 0061), then runs, prompt by prompt and
alternating, the fast path's statements on each: before, the entity match, the 1-hop relations
and three vector searches (150 instruction candidates through the index of every node, 20
broad, 15 global); after, the entity match, the relations and the one statement of
`fast_candidates` (40 candidates through the instructions' own index). Query vectors are
computed beforehand, so the figures are the statements' own time (round trips included).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.graph_latency import DAYS, PROJECT, PROMPTS, person, seed
from bench.memory_api import percentile

NON_ENTITY = ("fact", "event", "opinion", "instruction", "plan")


def before(repo: Any, vector: list[float], keys: list[str]) -> tuple[int, int, int]:
    entities = repo.find_entities(PROJECT, keys, 15)
    repo.relations([e.id for e in entities], 16)
    instructions = repo.similar(PROJECT, vector, ("instruction",), 150)
    broad = repo.similar(PROJECT, vector, NON_ENTITY, 20)
    found = repo.similar(PROJECT, vector, ("instruction",), 15, min_scope=0.8)
    return len(instructions), len(broad), len(found)


def after(repo: Any, vector: list[float], keys: list[str]) -> tuple[int, int, int]:
    entities = repo.find_entities(PROJECT, keys, 15)
    repo.relations([e.id for e in entities], 16)
    near = repo.fast_candidates(PROJECT, vector, instructions=40, broad_types=NON_ENTITY, broad=20,
                                global_scope=0.8, global_limit=15)
    return len(near["instructions"]), len(near["broad"]), len(near["global"])


def main() -> int:
    import psycopg
    from pgvector.psycopg import register_vector
    from psycopg.conninfo import conninfo_to_dict, make_conninfo
    from psycopg.rows import dict_row

    from chalicelib.graph.adapters.graph_repository import PostgresGraphRepository
    from chalicelib.graph.domain.names import candidate_keys
    from tests.support.local_stack import TestPostgres, make_container, settings_for_test

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("-n", type=int, default=200, help="prompts")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="itachi-bench-graph-"))
    pg = TestPostgres(root / "pg")
    try:
        url = pg.new_database()
        container = make_container(settings_for_test(root / "home", url, None), with_queues=False)
        rng = random.Random(17)
        prompts = [rng.choice(PROMPTS).format(s=f"svc{rng.randrange(120)}", d=rng.choice(DAYS),
                                              p=person(rng.randrange(300))) for _ in range(args.n)]
        try:
            nodes, _, seconds = seed(container, args.nodes)
            vectors = container.embedder.embed(prompts)
        finally:
            container.close()
        print(f"graph: {nodes} nodes in {seconds:.0f} s", flush=True)
        source = conninfo_to_dict(url)["dbname"]
        copy = make_conninfo(url, dbname=f"{source}_before")
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{source}_before" TEMPLATE "{source}"')
        with psycopg.connect(copy, autocommit=True) as conn:
            conn.execute("DROP INDEX graph_instructions_embedding_hnsw")
        conns: dict[str, Any] = {}
        for label, dsn in (("before", copy), ("after", url)):
            conns[label] = psycopg.connect(dsn, row_factory=dict_row, autocommit=True)
            register_vector(conns[label])
            conns[label].execute("ANALYZE graph_nodes")
        runs = {"before": before, "after": after}
        timings: dict[str, list[float]] = {label: [] for label in runs}
        counts: dict[str, list[tuple[int, int, int]]] = {label: [] for label in runs}
        for i, (prompt, vector) in enumerate(zip(prompts, vectors, strict=True)):
            order = ("before", "after") if i % 2 else ("after", "before")
            for label in order:
                repo = PostgresGraphRepository(conns[label])
                started = time.perf_counter()
                counts[label].append(runs[label](repo, vector, candidate_keys(prompt)))
                timings[label].append((time.perf_counter() - started) * 1000)
        for conn in conns.values():
            conn.close()
    finally:
        pg.close()
        shutil.rmtree(root, ignore_errors=True)
    print(f"\n{args.n} prompts, {nodes} graph nodes, alternating (ms)")
    print("| statements | p50 | p95 | instruction candidates (mean) |\n|---|---|---|---|")
    for label, values in timings.items():
        mean = sum(c[0] for c in counts[label]) / len(counts[label])
        print(f"| {label} | {percentile(values, 50):.1f} | {percentile(values, 95):.1f} | {mean:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
