"""Search latency at scale through the real API: 100k+ memories, many projects, one large.

    .venv/bin/python bench/scale.py [--rows 100000] [--large 40000] [--queries 200]
                                    [--vectors model|synthetic] [--ingest-during] [--home DIR]

Starts `itachi up` in a throwaway home, bulk-loads the memories into its database with COPY
(embedded once with the local model and cached under ~/.cache/itachi; the HNSW index is built
after the load), then times `GET /api/memory/search` (hybrid, limit 10, project + `_global`,
a new query text every time so no query embedding is cached) for the large project and a
small one, after a warm-up. The server embeds each query with the local model: the figures
include that.

`--vectors synthetic` (for 1M rows, which the local model would take days to embed) gives each
row a clustered synthetic vector: a real embedding of the 100k corpus (from the cache, when a
model run made it) or one of 2,000 random centres, plus Gaussian noise, unit length. Latency
figures only: the ranking is not meaningful. `--ingest-during` repeats the timed searches while
another client ingests new memories through `POST /api/memory/batch` (500 per call) as fast as
the server takes them, and prints the ingest rate beside the search figures. `--home DIR` keeps
the server's home (and its loaded database) after the run; a later run with the same `--home`
and at least as many memories loaded skips the load, so a 1M database is loaded once and
measured many times (`rm -rf DIR` when done).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memory_api import ROOT, ItachiServer, percentile
from scale_db import memory_count, set_shared_buffers, synthetic_vectors, table_size

sys.path.insert(0, str(ROOT))

MODULES = ["billing", "auth", "search", "ingest", "scheduler", "exporter", "payments", "audit", "webhooks",
           "reports", "sync", "uploads", "sessions", "invoices", "onboarding", "analytics", "permissions"]
PARTS = ["service", "repository", "handler", "client", "models", "worker", "adapter", "config", "schema"]
TOOLS = ["Postgres", "Redis", "SQS", "pgvector", "FastAPI", "React", "Terraform", "Kafka", "S3", "pytest"]
THINGS = ["the retry loop", "pagination", "input validation", "the error path", "the rate limiter",
          "timezone conversion", "the batch size", "connection pooling", "the feature flag", "the cache key",
          "the idempotency check", "the CSV export", "the migration", "the backoff", "the health check"]
REASONS = ["it timed out under load", "errors were swallowed", "p95 latency was too high",
           "two workers raced on one row", "customers got duplicate emails", "memory grew without bound",
           "tests were flaky on CI", "a token leaked into logs", "daylight saving time broke the schedule"]
PEOPLE = ["Aiko", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Mira", "Omar", "Priya"]
TEMPLATES = [
    "Changed {thing} in src/{module}/{part}.py because {reason} (ticket {n}).",
    "Decision {n}: the {module} {part} uses {tool}; {person} signed off.",
    "Bug {n} in the {module} {part}: {reason}; fixed {thing}.",
    "Pattern: wrap {thing} in the {module} {part} before calling {tool} (seen {n} times).",
    "{person} prefers {tool} for {thing} in {module} since release {n}.",
]
QUESTIONS = ["how did we fix {thing} in the {module} {part}", "why does the {module} {part} use {tool}",
             "who decided about {thing} in {module}", "what broke when {reason}",
             "is there a pattern for {thing} with {tool}"]


def text(rng: random.Random, template: str, n: int) -> str:
    return template.format(thing=rng.choice(THINGS), module=rng.choice(MODULES), part=rng.choice(PARTS),
                           tool=rng.choice(TOOLS), reason=rng.choice(REASONS), person=rng.choice(PEOPLE), n=n)


def corpus(total: int, large: int, projects: int) -> list[tuple[str, str]]:
    """(project, content) pairs: one large project, `projects` small ones, 2 % in _global."""
    rng = random.Random(42)
    rows = [("acme/large", text(rng, rng.choice(TEMPLATES), i)) for i in range(large)]
    rest = total - large
    rows += [("_global", text(rng, rng.choice(TEMPLATES), i)) for i in range(rest // 50)]
    rows += [(f"acme/p{i % projects:04d}", text(rng, rng.choice(TEMPLATES), i))
             for i in range(rest - rest // 50)]
    return rows


def embeddings(texts: list[str]) -> list[list[float]]:
    import numpy as np

    from chalicelib.memory.adapters.local_embedder import LocalEmbedder

    key = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    folder = Path(os.environ.get("ITACHI_TEST_CACHE") or Path.home() / ".cache" / "itachi")
    cache = folder / f"scale-{key}.npy"
    if cache.exists():
        return np.load(cache).tolist()  # type: ignore[no-any-return]
    started = time.perf_counter()
    vectors = LocalEmbedder().embed(texts)
    print(f"embedded {len(texts)} texts in {time.perf_counter() - started:.0f} s (cached in {cache})")
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, np.asarray(vectors, dtype=np.float32))
    return vectors


def load(server: ItachiServer, rows: list[tuple[str, str]], synthetic: bool = False) -> float:
    from chalicelib.kernel.database import Database
    from chalicelib.memory.adapters.memory_bulk_load import bulk_load
    from chalicelib.memory.domain.memory_model import MemoryDraft
    from infra.local.postgres import start_postgres

    vectors = synthetic_vectors(len(rows)) if synthetic else embeddings([content for _, content in rows])
    handle, url = start_postgres(server.home)  # attaches to the server `itachi up` runs
    db = Database(url)
    now, started = datetime.now(UTC), time.perf_counter()
    try:
        bulk_load(db, (MemoryDraft(p, "code_change", c, embedding=v, embedding_model="all-MiniLM-L6-v2",
                                   created_at=now - timedelta(minutes=i))
                       for i, ((p, c), v) in enumerate(zip(rows, vectors, strict=True))),
                  index_memory=os.environ.get("ITACHI_BENCH_INDEX_MEMORY", "512MB"))
    finally:
        db.close()
        handle.cleanup()  # detach: the server stays up while `itachi up` holds it
    return time.perf_counter() - started


def timed_searches(server: ItachiServer, project: str, count: int, seed: int,
                   mode: str = "hybrid") -> list[float]:
    client, rng = server.client(), random.Random(seed)
    times = []
    for i in range(count):
        query = f"{text(rng, rng.choice(QUESTIONS), i)} ({seed}-{i})"  # always a new text
        answer = client.search(query, project, 10, mode)
        assert len(answer["results"]) == 10 and answer["mode"] == mode, answer
        times.append(client.last_ms)
    return times


def searches_while_ingesting(server: ItachiServer, queries: int) -> None:
    """The timed searches again, with a second client posting batches of 500 new memories."""
    stop, done = threading.Event(), [0, 0.0]

    def ingest() -> None:
        client, rng, n, started = server.client(), random.Random(99), 0, time.perf_counter()
        while not stop.is_set():
            batch = [{"project": f"acme/ingest{n % 7}", "category": "code_change",
                      "content": f"{text(rng, rng.choice(TEMPLATES), 10_000_000 + n + i)} (live {n + i})"}
                     for i in range(500)]
            client.call("POST", "/api/memory/batch", {"memories": batch})
            n += len(batch)
            done[0], done[1] = n, time.perf_counter() - started

    worker = threading.Thread(target=ingest, daemon=True)
    worker.start()
    try:
        time.sleep(5)  # the first batch is under way
        for project in ("acme/large", "acme/p0007"):
            times = timed_searches(server, project, queries, seed=3)
            print(f"{project} while ingesting: hybrid search p50 {percentile(times, 50):.1f} ms, "
                  f"p95 {percentile(times, 95):.1f} ms, max {max(times):.1f} ms, {len(times)} queries")
    finally:
        stop.set()
        worker.join(timeout=600)
    print(f"ingested meanwhile: {done[0]} memories in {done[1]:.0f} s ({done[0] / max(done[1], 1e-9):.0f}/s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", "--total", dest="total", type=int, default=100_000)
    parser.add_argument("--large", type=int, default=40_000)
    parser.add_argument("--projects", type=int, default=600)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1, help="the server's torch threads (0: one per core)")
    parser.add_argument("--vectors", choices=("model", "synthetic"), default="model")
    parser.add_argument("--ingest-during", action="store_true", help="search again while ingesting")
    parser.add_argument("--shared-buffers", help="e.g. 512MB: Postgres's buffer cache (default: 128MB)")
    parser.add_argument("--home", type=Path, help="keep the home (database) here; reuse a loaded one")
    args = parser.parse_args()
    rows = corpus(args.total, args.large, args.projects)
    env = {"ITACHI_EMBEDDING_THREADS": str(args.threads)}
    server = ItachiServer(home=args.home, env=env).start(timeout_s=1800)  # a kept 1M home builds new indexes
    try:
        loaded = memory_count(server) if args.home else 0
        if loaded >= len(rows):
            print(f"reusing the {loaded} memories already loaded in {args.home}")
        else:
            seconds = load(server, rows, synthetic=args.vectors == "synthetic")
            in_global = sum(p == "_global" for p, _ in rows)
            print(f"bulk-loaded {len(rows)} memories ({args.large} in acme/large, {args.projects} small "
                  f"projects, {in_global} in _global) in {seconds:.0f} s, HNSW built after")
        print(f"table and indexes: {table_size(server)}")
        if args.shared_buffers:
            set_shared_buffers(server, args.shared_buffers)
            server.restart(server.env)
            print(f"restarted with shared_buffers = {args.shared_buffers}")
        for project in ("acme/large", "acme/p0007"):
            size = sum(p == project for p, _ in rows)
            for mode in ("hybrid", "text"):  # text: the same path without embedding the query
                timed_searches(server, project, 20, seed=1, mode=mode)  # warm-up
                times = timed_searches(server, project, args.queries, seed=2, mode=mode)
                print(f"{project} ({size} memories): {mode} search p50 {percentile(times, 50):.1f} ms, "
                      f"p95 {percentile(times, 95):.1f} ms, max {max(times):.1f} ms, {len(times)} queries")
        if args.ingest_during:
            searches_while_ingesting(server, args.queries)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
