"""What the graph memory adds to the prompt hook's one request, with 10,000 graph nodes.

    .venv/bin/python bench/graph_latency.py [--nodes 10000] [--memories 1000] [-n 100] [--pause-ms 100]

Starts its own `itachi up` (local MiniLM embedder), writes synthetic team knowledge (owners,
rules, plans, events about 300 people and 120 services) into one project's graph through the
heuristic extractor until it holds `--nodes` nodes, stores `--memories` of the same statements
as memories, then times `GET /api/memory/search` with the hook's parameters, without and with
`graph=true`, alternating query by query. Every prompt is new (a numbered suffix), so each is
embedded, as a real prompt is; with `graph=true` the server also queues the prompt for the
store pipeline, which the stack's dispatcher runs a second later (the message's delay, as in use),
beside whichever requests the run is then timing, with or without the graph. Each request is
followed by a pause (`--pause-ms`; prompts come seconds apart in use), so that none is timed
while the server still sends the previous one's prompt to the queue (the local server does that
once the response is written). The load average is printed before and after the timed requests.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import postgres_url
from bench.locomo_graph import graph_container
from bench.memory_api import ItachiServer, percentile

PROJECT = "github.com/acme/platform"
NAMES = ["Dana", "Omar", "Lisa", "Peter", "Ines", "Kenji", "Maya", "Tomas", "Aisha", "Bruno"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
PROMPTS = ["can I deploy the {s} service on {d}", "who owns the {s} service these days",
           "what is planned for the {s} service", "what did {p} change in the {s} service"]


def person(i: int) -> str:
    return f"{NAMES[i % len(NAMES)]}{i // len(NAMES)}"


def statements(i: int, rng: random.Random) -> list[str]:
    p, s, d = person(rng.randrange(300)), f"svc{rng.randrange(120)}", rng.choice(DAYS)
    return [f"{p} owns the {s} service.", f"Never deploy the {s} service on {d}.",
            f"{p} shipped the {s} retry logic last week.",
            f"The {s} service migration is planned for {rng.randrange(1, 28)} March."]


def seed(container: Any, target: int) -> tuple[int, list[str], float]:
    from chalicelib.graph.domain.heuristic_extractor import Extraction, extract
    from chalicelib.graph.services.graph_writer import write_extraction

    rng, now, started, texts = random.Random(7), datetime.now(UTC), time.perf_counter(), []
    total, i = 0, 0
    while total < target:
        merged = Extraction()
        for _ in range(50):
            for text in statements(i, rng):
                found = extract(text, now)
                merged.entities += found.entities
                merged.items += found.items
                merged.links += found.links
                texts.append(text)
            i += 1
        with container.graph_units() as uow:
            write_extraction(uow.graph, container.embedder, PROJECT, merged)
            uow.commit()
            total = sum(uow.graph.count(PROJECT).values()) - uow.graph.count(PROJECT).get("edges", 0)
    return total, texts, time.perf_counter() - started


def time_fast_path(container: Any, n: int) -> list[float]:
    """`graph_retrieve.fast` in process for `n` prompts, each embedded beforehand (the LRU then
    answers), so the figure is the graph's own work: its statements, assembly and rendering."""
    rng, timings = random.Random(13), []
    for _ in range(n):
        prompt = rng.choice(PROMPTS).format(s=f"svc{rng.randrange(120)}", d=rng.choice(DAYS),
                                            p=person(rng.randrange(300)))
        container.embedder.embed([prompt])
        started = time.perf_counter()
        container.graph_retrieve.fast(PROJECT, prompt)
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--memories", type=int, default=1_000)
    parser.add_argument("-n", type=int, default=100, help="queries per way")
    parser.add_argument("--pause-ms", type=float, default=100, help="pause after each request")
    args = parser.parse_args()
    server = ItachiServer(env={"ITACHI_EMBEDDING_TIMEOUT_S": "120"}).start()
    try:
        handle, url = postgres_url(server)
        container = graph_container(server, url)
        try:
            nodes, texts, seconds = seed(container, args.nodes)
            print(f"graph: {nodes} nodes in {seconds:.0f} s", flush=True)
            in_process = time_fast_path(container, args.n)
        finally:
            container.close()
            handle.cleanup()
        client = server.client()
        texts = list(dict.fromkeys(texts))  # a batch holding the same text twice is refused
        for start in range(0, args.memories, 50):
            client.call("POST", "/api/memory/batch", {"memories": [
                {"project": PROJECT, "category": "fact", "content": t} for t in texts[start:start + 50]]})
        base = {"project": PROJECT, "project_limit": 3, "global_limit": 2, "mode": "hybrid"}
        timings: dict[str, list[float]] = {"without graph": [], "with graph=true": []}
        rng, stamp = random.Random(11), int(time.time())
        load = [os.getloadavg()[0]]
        for i in range(args.n):
            prompt = rng.choice(PROMPTS).format(s=f"svc{rng.randrange(120)}", d=rng.choice(DAYS),
                                                p=person(rng.randrange(300)))
            for label, extra in (("without graph", {}), ("with graph=true", {"graph": "true"})):
                query = f"{prompt} (run {stamp}-{i}-{len(extra)})"
                client.call("GET", "/api/memory/search", **base, **extra, query=query)
                timings[label].append(client.last_ms)
                time.sleep(args.pause_ms / 1000)
        load.append(os.getloadavg()[0])
    finally:
        server.stop()
    print(f"\n{args.n} prompts per way, {nodes} graph nodes, {args.memories} memories (client wall ms),"
          f" {args.pause_ms:.0f} ms pause after each, load average {load[0]:.1f} before,"
          f" {load[-1]:.1f} after")
    print("| request | p50 | p95 |\n|---|---|---|")
    for label, values in timings.items():
        print(f"| {label} | {percentile(values, 50):.1f} | {percentile(values, 95):.1f} |")
    added = percentile(timings["with graph=true"], 95) - percentile(timings["without graph"], 95)
    print(f"p95 added by the graph: {added:+.1f} ms")
    print(f"fast path in process, query vector cached (its SQL and assembly): p50 "
          f"{percentile(in_process, 50):.1f} ms, p95 {percentile(in_process, 95):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
