"""Ingest speed through the real API, against the local embedder's own speed in the same run.

    .venv/bin/python bench/ingest.py [-n 3000] [--batch 500] [--provider local|onnx|torch]

Starts `itachi up --no-agent` in a throwaway home, then, batch by batch (so the box's drifting
load falls on both sides alike):
1. embeds `--batch` new texts with the same embedder in this process (same code path, batch size
   and thread count as the server's): the embedder's own throughput, the ceiling for ingestion;
2. posts `--batch` other new memories through `POST /api/memory/batch` (near-duplicate guard on,
   as in use): memories/s end to end, and how many were stored with their vector (a batch whose
   embedding misses the server's 30 s write deadline is stored without vectors).
The ratio is the API's total time over the embedder's, with the median of the per-batch ratios.
Then it stores batches in this process through the server's own write path (attached to its
database) and times its steps: cleaning and embedding (`prepare`, embedding cache included)
against deduplicating and inserting (`write`) one after the other, then `store`, which embeds
each chunk while the chunk before it is written, so the gap between 1 and 2 is accounted for.
The memories are the varied, templated ones of `bench/seed_memories.py` (every text distinct).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from memory_api import ROOT, ItachiServer
from seed_memories import memories

sys.path.insert(0, str(ROOT))


def interleaved(server: ItachiServer, own: list[str], items: list[dict[str, object]], batch: int,
                provider: str, threads: int) -> tuple[list[float], list[float], int]:
    """(embedder-alone seconds, API seconds) per batch, and how many memories have a vector."""
    from chalicelib.memory.adapters.embedders import local_embedder

    embedder = local_embedder(provider, threads=threads)
    embedder.embed(["warm up", "the embedder"])
    client = server.client()
    alone, api = [], []
    for offset in range(0, len(items), batch):
        started = time.perf_counter()
        embedder.embed(own[offset:offset + batch])
        alone.append(time.perf_counter() - started)
        started = time.perf_counter()
        answer = client.call("POST", "/api/memory/batch", {"memories": items[offset:offset + batch]})
        api.append(time.perf_counter() - started)
        assert len(answer["ids"]) == len(items[offset:offset + batch]), answer
    stats = client.call("GET", "/api/memory/stats", project=str(items[0]["project"]))
    return alone, api, int(stats["with_embedding"])


def steps(server: ItachiServer, batches: list[list[dict[str, object]]], provider: str,
          threads: int) -> list[tuple[str, float, float]]:
    """(how, prepare s, write s) per batch through the server's write path in this process, in
    turn: prepared then written, and stored pipelined (its total in the first figure)."""
    from chalicelib.bootstrap import build
    from chalicelib.kernel.settings import Settings
    from chalicelib.memory.schemas import MemoryIn
    from infra.local.postgres import start_postgres

    handle, url = start_postgres(server.home)
    settings = Settings.model_validate({"database_url": url, "embedding_provider": provider,
                                        "embedding_threads": threads})
    container = build(settings)
    out = []
    try:
        store = container.memory.store
        store.write_timeout_s = 600
        for i, items in enumerate(batches):
            drafts = [MemoryIn.model_validate(m).draft("person") for m in items]
            started = time.perf_counter()
            if i % 2 == 0:
                prepared = store.prepare(drafts)
                middle = time.perf_counter()
                with container.memory_units() as uow:
                    store.write(uow, prepared, near_dedup=True)
                    uow.commit()
                out.append(("prepare, then write", middle - started, time.perf_counter() - middle))
            else:
                store.store(drafts, near_dedup=True)
                out.append((f"store, chunks of {store.chunk} pipelined", time.perf_counter() - started, 0.0))
    finally:
        container.close()
        handle.cleanup()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--provider", default=os.environ.get("ITACHI_EMBEDDING_PROVIDER", "local"))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    env = {"ITACHI_EMBEDDING_PROVIDER": args.provider, "ITACHI_EMBEDDING_THREADS": str(args.threads),
           "ITACHI_EMBEDDING_TIMEOUT_S": "600"}
    server = ItachiServer(env=env).start()
    try:
        own = [str(m["content"]) for m in memories("bench/embed", args.n, seed=11)]
        items = memories("bench/ingest", args.n, seed=12)
        alone, api, with_vector = interleaved(server, own, items, args.batch, args.provider, args.threads)
        ratios = sorted(a / e for a, e in zip(api, alone, strict=True))
        print(f"embedder alone ({args.provider}, {args.threads} thread(s)): {args.n / sum(alone):.1f} texts/s"
              f" (per batch: {', '.join(f'{args.batch / t:.0f}' for t in alone)})")
        print(f"POST /api/memory/batch ({args.batch} per call, near-dup guard on): {args.n / sum(api):.1f}"
              f" memories/s (per batch: {', '.join(f'{args.batch / t:.0f}' for t in api)}),"
              f" {with_vector} of {len(items)} stored with a vector")
        print(f"API time / embedder time: {sum(api) / sum(alone):.2f} overall, per batch median"
              f" {statistics.median(ratios):.2f} (min {ratios[0]:.2f}, max {ratios[-1]:.2f})")
        batches = [memories(f"bench/steps{i}", args.batch, seed=13 + 10 * i) for i in range(4)]
        for i, (how, first, second) in enumerate(steps(server, batches, args.provider, args.threads)):
            if second:
                print(f"in-process batch {i + 1} of {args.batch}, {how}: prepare (clean, embed, cache)"
                      f" {first:.2f} s, write (near-dup lookup + insert) {second:.2f} s")
            else:
                print(f"in-process batch {i + 1} of {args.batch}, {how}: {first:.2f} s")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
