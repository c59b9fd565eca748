"""What a search setting costs in latency: the same memories and queries, settings alternated.

    .venv/bin/python bench/search_settings.py [--rows 100000] [--queries 150] [--rounds 2]
        [--setting NAME=ENV=VALUE[,ENV=VALUE]] ...

Bulk-loads the `bench/scale.py` corpus (its cached embeddings) into one `itachi up`, then for
each round and each setting (the shipped defaults first) restarts the server with that
setting's environment and times `GET /api/memory/search` (hybrid, limit 10, project plus
`_global`, a new query text every time) on the large project and a small one, half of the
queries naming a time ("... yesterday"), so a dates weight has work to do. Memories are stored
a minute apart, so every hit has neighbours within half an hour. Rounds alternate the settings
so the box's load drifts over all of them alike; the summary pools each setting's rounds.

`--in-process` times the search itself instead, which is what a setting changes: every query is
embedded once, then each setting's `PostgresMemorySearch.search` runs on it back to back (order
rotated per query), on the server's database, so load drifts cancel out query by query.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict

from memory_api import ItachiServer, percentile
from scale import QUESTIONS, corpus, load, text

DEFAULT_SETTINGS = [
    "shipped=",
    "neighbours 0.7=ITACHI_SEARCH_NEIGHBOURS_WEIGHT=0.7",
    "neighbours 0.7 + dates 0.3=ITACHI_SEARCH_NEIGHBOURS_WEIGHT=0.7,ITACHI_SEARCH_DATES_WEIGHT=0.3",
]


def parse(spec: str) -> tuple[str, dict[str, str]]:
    name, _, env = spec.partition("=")
    pairs = [p.split("=", 1) for p in env.split(",") if p]
    return name, {k: v for k, v in pairs}


def timed(server: ItachiServer, project: str, count: int, seed: int) -> list[float]:
    client, rng = server.client(), random.Random(seed)
    times = []
    for i in range(count):
        when = " yesterday" if i % 2 else ""
        answer = client.search(f"{text(rng, rng.choice(QUESTIONS), i)}{when} ({seed}-{i})", project, 10)
        assert answer["results"] and answer["mode"] == "hybrid", answer
        times.append(client.last_ms)
    return times


def in_process(server: ItachiServer, settings: list[tuple[str, dict[str, str]]], queries: int) -> None:
    import time

    from chalicelib.kernel.database import Database
    from chalicelib.memory.adapters.embedders import local_embedder
    from chalicelib.memory.adapters.memory_search import PostgresMemorySearch
    from chalicelib.memory.adapters.search_statistics import SearchStatistics
    from chalicelib.memory.domain.memory_model import SearchScope
    from chalicelib.memory.domain.search_scoring import SearchWeights
    from infra.local.postgres import start_postgres

    def weights(env: dict[str, str]) -> SearchWeights:
        shipped = SearchWeights()
        return SearchWeights(
            neighbours=float(env.get("ITACHI_SEARCH_NEIGHBOURS_WEIGHT", shipped.neighbours)),
            dates=float(env.get("ITACHI_SEARCH_DATES_WEIGHT", shipped.dates))).normalised()

    chosen = [(name, weights(env)) for name, env in settings]
    rng = random.Random(7)
    texts = [f"{text(rng, rng.choice(QUESTIONS), i)}{' yesterday' if i % 2 else ''}" for i in range(queries)]
    vectors = local_embedder().embed(texts)
    handle, url = start_postgres(server.home)
    db, times = Database(url), defaultdict(list)
    try:
        for i, (query, vector) in enumerate(zip(texts, vectors, strict=True)):
            project = "acme/large" if i % 4 < 2 else "acme/p0007"  # dated and undated on both
            for j in range(len(chosen)):
                name, w = chosen[(i + j) % len(chosen)]
                with db.connection() as conn:
                    started = time.perf_counter()
                    PostgresMemorySearch(conn, SearchStatistics()).search(
                        query, vector, SearchScope((project, "_global")), mode="hybrid", limit=10, weights=w)
                    ms = (time.perf_counter() - started) * 1000
                    times[(name, project)].append(ms)
                    times[(name, f"{project}, {'naming a time' if i % 2 else 'no time'}")].append(ms)
    finally:
        db.close()
        handle.cleanup()
    print("\nin process (the search statements only, settings back to back per query)")
    print("| setting | project | p50 ms | p95 ms | queries |\n|---|---|---|---|---|")
    for (name, project), cell in sorted(times.items(), key=lambda kv: kv[0][1]):
        p50, p95 = percentile(cell, 50), percentile(cell, 95)
        print(f"| {name} | {project} | {p50:.1f} | {p95:.1f} | {len(cell)} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--large", type=int, default=40_000)
    parser.add_argument("--projects", type=int, default=600)
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--setting", action="append", help="NAME=ENV=VALUE[,ENV=VALUE] (repeatable)")
    parser.add_argument("--in-process", action="store_true", help="time the search statements in process")
    args = parser.parse_args()
    settings = [parse(s) for s in (args.setting or DEFAULT_SETTINGS)]
    rows = corpus(args.rows, args.large, args.projects)
    base = {"ITACHI_EMBEDDING_THREADS": "1"}
    server = ItachiServer(env=base).start()
    pooled: dict[tuple[str, str], list[float]] = defaultdict(list)
    try:
        print(f"bulk-loaded {len(rows)} memories in {load(server, rows):.0f} s", flush=True)
        if args.in_process:
            in_process(server, settings, args.queries)
            return 0
        for round_ in range(args.rounds):
            for name, env in settings:
                server.restart({**base, **env})
                for project in ("acme/large", "acme/p0007"):
                    timed(server, project, 20, seed=1)  # warm-up
                    times = timed(server, project, args.queries, seed=2 + round_)
                    pooled[(name, project)] += times
                    print(f"round {round_ + 1}, {name}, {project}: p50 {percentile(times, 50):.1f} ms, "
                          f"p95 {percentile(times, 95):.1f} ms", flush=True)
    finally:
        server.stop()
    print("\n| setting | project | p50 ms | p95 ms | queries |\n|---|---|---|---|---|")
    for (name, project), times in pooled.items():
        cells = f"{percentile(times, 50):.1f} | {percentile(times, 95):.1f} | {len(times)}"
        print(f"| {name} | {project} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
