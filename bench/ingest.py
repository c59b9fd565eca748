"""Ingest speed through the real API, against the local embedder's own speed in the same run.

    .venv/bin/python bench/ingest.py [-n 3000] [--batch 500] [--provider local|onnx|torch]

Starts `itachi up --no-agent` in a throwaway home, then:
1. embeds `n` new texts with the same embedder in this process (same thread count as the
   server): the embedder's own throughput, the ceiling for ingestion;
2. posts `n` other new memories through `POST /api/memory/batch` (`--batch` per call, near-duplicate
   guard on, as in use): memories/s end to end;
3. stores two more batches in this process through the server's own write path (attached to its
   database) and times its steps: cleaning and embedding (`prepare`, embedding cache included)
   against deduplicating and inserting (`write`), so the gap between 1 and 2 is accounted for.
The memories are the varied, templated ones of `bench/seed_memories.py` (every text distinct).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from memory_api import ROOT, ItachiServer
from seed_memories import memories

sys.path.insert(0, str(ROOT))


def embedder_rate(texts: list[str], provider: str, threads: int) -> float:
    from chalicelib.memory.adapters.embedders import local_embedder

    embedder = local_embedder(provider, threads=threads)
    embedder.embed(["warm up", "the embedder"])
    started = time.perf_counter()
    for offset in range(0, len(texts), 500):
        embedder.embed(texts[offset:offset + 500])
    return len(texts) / (time.perf_counter() - started)


def api_rate(server: ItachiServer, items: list[dict[str, object]], batch: int) -> float:
    client = server.client()
    started = time.perf_counter()
    for offset in range(0, len(items), batch):
        answer = client.call("POST", "/api/memory/batch", {"memories": items[offset:offset + batch]})
        assert len(answer["ids"]) == len(items[offset:offset + batch]), answer
    return len(items) / (time.perf_counter() - started)


def steps(server: ItachiServer, items: list[dict[str, object]], batch: int, provider: str,
          threads: int) -> list[tuple[float, float]]:
    """(prepare s, write s) per batch, through the server's write path in this process."""
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
        for offset in range(0, len(items), batch):
            drafts = [MemoryIn.model_validate(m).draft() for m in items[offset:offset + batch]]
            started = time.perf_counter()
            prepared = store.prepare(drafts)
            middle = time.perf_counter()
            with container.memory_units() as uow:
                store.write(uow, prepared, near_dedup=True)
                uow.commit()
            out.append((middle - started, time.perf_counter() - middle))
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
        rate = embedder_rate(own, args.provider, args.threads)
        print(f"embedder alone ({args.provider}, {args.threads} thread(s)): {rate:.0f} texts/s")
        api = api_rate(server, memories("bench/ingest", args.n, seed=12), args.batch)
        print(f"POST /api/memory/batch ({args.batch} per call, near-dup guard on): {api:.0f} memories/s"
              f" ({rate / api:.2f}x the embedder's time)")
        for i, (prepare, write) in enumerate(steps(server, memories("bench/steps", 2 * args.batch, seed=13),
                                                   args.batch, args.provider, args.threads)):
            print(f"in-process batch {i + 1} of {args.batch}: prepare (clean, embed, cache) {prepare:.2f} s,"
                  f" write (near-dup lookup + insert) {write:.2f} s")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
