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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--large", type=int, default=40_000)
    parser.add_argument("--projects", type=int, default=600)
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--setting", action="append", help="NAME=ENV=VALUE[,ENV=VALUE] (repeatable)")
    args = parser.parse_args()
    settings = [parse(s) for s in (args.setting or DEFAULT_SETTINGS)]
    rows = corpus(args.rows, args.large, args.projects)
    base = {"ITACHI_EMBEDDING_THREADS": "1"}
    server = ItachiServer(env=base).start()
    pooled: dict[tuple[str, str], list[float]] = defaultdict(list)
    try:
        print(f"bulk-loaded {len(rows)} memories in {load(server, rows):.0f} s", flush=True)
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
