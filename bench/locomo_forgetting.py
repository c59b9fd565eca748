"""What forgetting costs in recall: LoCoMo before and after the lifecycle evicts half of each conversation.

    .venv/bin/python bench/locomo_forgetting.py [--data ../shared/benchdata] [--convs 1-10]

Starts `itachi up` (local MiniLM embedder, default search settings), stores each conversation
in its own project as `bench/locomo.py` does (dates shifted so the last session ends now), and
records each LoCoMo session of a conversation as a session of its project (started just before
its first turn). Memory use is then the sessions alone: the access counts the questions leave
are cleared before every eviction, so the evaluation does not pick what is kept. Eviction runs
with a budget of half of each project (`MemoryEviction` in this process, on the server's
database, deterministic reducer), three runs: the least valuable half (the oldest sessions,
priority = difficulty + recency in sessions + use) goes to hint, abstract, then archived. Every
category 1-4 question is asked in hybrid mode (limit 20) before and after each run; printed:
turn R@10 and MRR (cited evidence), search latency p50/p95, and the share of questions whose
evidence is in the evicted half.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import ingest, parse_convs, postgres_url, run_mode, settings_env
from bench.locomo_data import load
from bench.locomo_report import asked, overall
from bench.memory_api import ROOT, ItachiServer


def record_sessions(db: Any) -> int:
    with db.connection() as conn:
        return int(conn.execute(
            "INSERT INTO sessions (session_id, project, started_at)"
            " SELECT project || ':' || (metadata ->> 'session'), project,"
            " min(created_at) - interval '1 second'"
            " FROM memories WHERE project LIKE 'locomo-%%' GROUP BY project, metadata ->> 'session'"
            " ON CONFLICT DO NOTHING").rowcount)


def evict(db: Any, run: int) -> tuple[int, float, set[str]]:
    """One eviction run per project at half its size; (steps, seconds, ids evicted so far)."""
    from chalicelib.memory.adapters.memory_unit_of_work import memory_units
    from chalicelib.memory.services.memory_eviction import MemoryEviction
    from chalicelib.memory.services.memory_reducers import DeterministicReducer

    units = memory_units(db)
    with db.connection() as conn:
        conn.execute("DELETE FROM memory_access")  # the questions' own reads must not choose what stays
        sizes = conn.execute("SELECT project, count(*) AS n FROM memories WHERE project LIKE 'locomo-%%'"
                             " GROUP BY project").fetchall()
    steps, seconds = 0, 0.0
    for row in sizes:
        report = MemoryEviction(units, DeterministicReducer(), budget=int(row["n"]) // 2,  # type: ignore[arg-type]
                                batch_size=1000).run(f"forget-{run}", project=row["project"])
        steps, seconds = steps + report.advanced, seconds + report.seconds
    with db.connection() as conn:
        evicted = {str(r["id"]) for r in conn.execute(
            "SELECT id FROM memories WHERE project LIKE 'locomo-%%' AND phase > 0").fetchall()}
    return steps, seconds, evicted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "benchdata")
    parser.add_argument("--convs", default="all")
    args = parser.parse_args()
    everything = load(args.data)
    chosen = [(n, everything[n - 1]) for n in parse_convs(args.convs, len(everything))]
    server = ItachiServer(env=settings_env(0.4, 0.6, 0.1)).start()
    try:
        behind, _, _, seconds = ingest(server.client(), chosen, "shifted")
        print(f"conversations {args.convs}: {sum(len(c.turns) for _, c in chosen)} turns in {seconds:.0f} s")
        handle, url = postgres_url(server)
        from chalicelib.kernel.database import Database

        db = Database(url, min_size=1, max_size=2)
        try:
            print(f"{record_sessions(db)} LoCoMo sessions recorded as project sessions")
            rows = ["| stage | turn R@10 | MRR | search p50 ms | p95 ms | questions with evicted evidence |",
                    "|---|---|---|---|---|---|"]
            stages = ("all full", "half in hint", "half in abstract", "half archived (out of search)")
            for run, stage in enumerate(stages):
                share = "-"
                if run:
                    steps, took, evicted = evict(db, run)
                    print(f"run {run}: {steps} memories advanced in {took:.1f} s ({steps / took:.0f} rows/s)")
                    turns = {t for i in evicted for t in behind.get(i, set())}
                    questions = [q for _, _, q in asked(chosen)]
                    hit = sum(1 for q in questions if set(q.evidence) & turns)
                    share = f"{hit / len(questions):.1%}"
                result = run_mode(server.client(), chosen, behind, "hybrid")
                rows.append(f"| {stage} | {overall(result):.3f} | {overall(result, 'MRR'):.3f} | "
                            f"{result['latency_p50']:.0f} | {result['latency_p95']:.0f} | {share} |")
                print(rows[-1], flush=True)
            print("\n".join(rows))
        finally:
            db.close()
            handle.cleanup()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
