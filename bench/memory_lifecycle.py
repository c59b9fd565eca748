"""Memory lifecycle at scale through the real API: eviction runs, export and import of 100k memories.

    .venv/bin/python bench/memory_lifecycle.py [--rows 100000] [--graph-nodes 2000] [--no-eviction]

Starts `itachi up` in a throwaway home with a budget of half the rows, COPYs `--rows` memories
into one project (no vectors: eviction, export and import never read them), with 60 sessions
over the year and an access count on a third of them, then:
- runs `POST /api/memory/evict` until finished, three times (full -> hint -> abstract ->
  archived for the lowest-priority half), printing each run's steps, seconds and rows/s;
- `itachi export DIR --project P` (timed), again (nothing may be written), wipes the project,
  `itachi import DIR --defer-embeddings` (timed), exports again and compares every byte.
With `--graph-nodes N` the project also holds a graph of N nodes with their edges, a superseded
instruction and an open contradiction (`tests/support/graph_seed.py`, vectors from the test
embedder): export and import carry it (the import embeds the nodes with the server's embedder),
and the rates count every row (memories, nodes, edges, contradictions).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.memory_api import ROOT, ItachiServer

PROJECT = "bench-lifecycle"
WORDS = ("cache", "deploy", "queue", "worker", "retry", "index", "schema", "billing", "upload",
         "token", "session", "limit", "export", "migration", "rollback", "feature", "flag",
         "timeout", "latency", "replica", "shard", "backup", "alert")


def drafts(rows: int) -> Iterator[object]:
    from chalicelib.memory.domain.memory_model import MemoryDraft
    from chalicelib.memory.domain.memory_tags import auto_tags, merge_tags

    rng, base = random.Random(7), datetime(2026, 1, 1, tzinfo=UTC)
    for i in range(rows):
        text = (f"Note {i}: the {rng.choice(WORDS)} {rng.choice(WORDS)} of service_{i % 97} "
                f"{' '.join(rng.choices(WORDS, k=rng.randint(8, 40)))}. Seen on 2026-{1 + i % 12:02d}-"
                f"{1 + i % 28:02d} with {rng.randint(1, 5000)} requests.")
        yield MemoryDraft(project=PROJECT, category=("fact", "decision", "code_change")[i % 3],
                          content=text, created_at=base + timedelta(seconds=rng.randrange(31_536_000)),
                          tags=merge_tags(auto_tags("fact", (), text)))


def seed(url: str, rows: int) -> float:
    from chalicelib.kernel.database import Database
    from chalicelib.memory.adapters.memory_bulk_load import bulk_load

    started = time.perf_counter()
    db = Database(url, min_size=1, max_size=2)
    bulk_load(db, drafts(rows), rebuild_index=False)  # type: ignore[arg-type]
    with db.connection() as conn:
        conn.execute("INSERT INTO sessions (session_id, project, started_at) SELECT 'bench-' || g, %s,"
                     " timestamptz '2026-01-01' + g * interval '6 days' FROM generate_series(1, 60) g",
                     (PROJECT,))
        conn.execute("INSERT INTO memory_access (memory_id, access_count, last_accessed_at)"
                     " SELECT id, 1 + (abs(hashtext(id::text)) %% 12), created_at + interval '3 days'"
                     " FROM memories WHERE project = %s AND abs(hashtext(id::text)) %% 3 = 0", (PROJECT,))
        conn.execute("ANALYZE memories")
    db.close()
    return time.perf_counter() - started


def seed_graph_rows(url: str, nodes: int) -> int:
    """Seed the project's graph; how many rows it holds (nodes, edges, contradictions)."""
    from chalicelib.kernel.database import Database
    from tests.fakes.fake_embedder import WordEmbedder
    from tests.support.graph_seed import seed_graph

    started = time.perf_counter()
    db = Database(url, min_size=1, max_size=2)
    seeded = seed_graph(db, PROJECT, WordEmbedder(), nodes)
    db.close()
    took = time.perf_counter() - started
    print(f"seeded {seeded.nodes} graph nodes and {seeded.edges} edges in {took:.1f} s")
    return seeded.nodes + seeded.edges + 1


def itachi(server: ItachiServer, *args: str) -> tuple[float, str]:
    env = {**os.environ, "ITACHI_API_URL": server.url, "ITACHI_API_KEY": server.key,
           "ITACHI_HOME": str(server.home), "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "agent.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=3600)
    if done.returncode:
        raise RuntimeError(f"itachi {' '.join(args)}: {done.stderr[-500:]}")
    return time.perf_counter() - started, done.stdout.strip()


def same_tree(a: Path, b: Path) -> bool:
    compared = filecmp.dircmp(a, b)
    if compared.left_only or compared.right_only or compared.diff_files or compared.funny_files:
        return False
    return all(same_tree(a / d, b / d) for d in compared.common_dirs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--graph-nodes", type=int, default=0)
    parser.add_argument("--no-eviction", action="store_true")
    args = parser.parse_args()
    from bench.locomo import postgres_url

    server = ItachiServer(env={"ITACHI_MEMORY_BUDGET": str(args.rows // 2),
                               "ITACHI_MEMORY_EVICTION_BATCH": "1000"}).start()
    work = Path(tempfile.mkdtemp(prefix="itachi-bench-export-"))
    try:
        handle, url = postgres_url(server)
        try:
            print(f"seeded {args.rows} memories in {seed(url, args.rows):.1f} s")
            rows = args.rows + (seed_graph_rows(url, args.graph_nodes) if args.graph_nodes else 0)
            client = server.client()
            for run in () if args.no_eviction else (1, 2, 3):
                steps, seconds, calls = 0, 0.0, 0
                while True:
                    report = client.call("POST", "/api/memory/evict", {
                        "project": PROJECT, "run_key": f"run-{run}", "time_budget_s": 240})
                    steps, seconds, calls = steps + report["advanced"], seconds + report["seconds"], calls + 1
                    if report["finished"]:
                        break
                print(f"eviction run {run}: {steps} memories advanced one phase in {seconds:.1f} s "
                      f"({steps / seconds:.0f} rows/s, {calls} call(s) of at most 240 s)")
            print("phases:", client.call("GET", "/api/memory/phases", project=PROJECT)["phases"])
            first, second = work / "first", work / "second"
            took, said = itachi(server, "export", str(first), "--project", PROJECT)
            print(f"export: {took:.1f} s ({rows / took:.0f} rows/s): {said}")
            took, said = itachi(server, "export", str(first), "--project", PROJECT)
            print(f"export again: {took:.1f} s: {said}")
            from chalicelib.kernel.database import Database

            db = Database(url, min_size=1, max_size=1)
            with db.connection() as conn:
                conn.execute("DELETE FROM memory_archive WHERE project = %s", (PROJECT,))
                conn.execute("DELETE FROM memories WHERE project = %s", (PROJECT,))
                conn.execute("DELETE FROM graph_nodes WHERE project = %s", (PROJECT,))  # edges cascade
            db.close()
            took, said = itachi(server, "import", str(first), "--defer-embeddings")
            print(f"import into the wiped project: {took:.1f} s ({rows / took:.0f} rows/s): {said}")
            itachi(server, "export", str(second), "--project", PROJECT)
            print(f"round trip byte-identical: {same_tree(first, second)}")
        finally:
            handle.cleanup()
    finally:
        server.stop()
        subprocess.run(["rm", "-rf", str(work)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
