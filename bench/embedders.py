"""The two local runtimes of all-MiniLM-L6-v2 side by side: throughput and agreement of vectors.

    .venv/bin/python bench/embedders.py [-n 1000] [--rounds 3] [--threads 1]

Loads ONNX Runtime and torch in this process, then embeds the same `n` templated memories
(`bench/seed_memories.py`, plus one text past the 256-token window) with each in turn, round
after round (so a busy moment hits both), and prints texts/s per runtime (median over rounds)
and the largest difference between their vectors.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from memory_api import ROOT
from seed_memories import memories

sys.path.insert(0, str(ROOT))


def main() -> int:
    from chalicelib.memory.adapters.embedders import local_embedder

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    texts = [str(m["content"]) for m in memories("bench/embed", args.n, seed=21)]
    texts.append("a text longer than the model's window " * 80)
    runtimes = {name: local_embedder(name, threads=args.threads) for name in ("onnx", "torch")}
    rates: dict[str, list[float]] = {name: [] for name in runtimes}
    vectors: dict[str, list[list[float]]] = {}
    for name, embedder in runtimes.items():
        started = time.perf_counter()
        embedder.embed(["load the model"])
        print(f"{name}: model loaded in {time.perf_counter() - started:.1f} s", flush=True)
    for _ in range(args.rounds):
        for name, embedder in runtimes.items():
            started = time.perf_counter()
            vectors[name] = embedder.embed(texts)
            rates[name].append(len(texts) / (time.perf_counter() - started))
    for name, values in rates.items():
        rounds = ", ".join(f"{v:.0f}" for v in values)
        print(f"{name}: {statistics.median(values):.0f} texts/s (rounds: {rounds})")
    worst = max(abs(a - b) for u, v in zip(vectors["onnx"], vectors["torch"], strict=True)
                for a, b in zip(u, v, strict=True))
    lowest = min(sum(a * b for a, b in zip(u, v, strict=True))
                 for u, v in zip(vectors["onnx"], vectors["torch"], strict=True))
    print(f"largest component difference {worst:.1e}, lowest cosine {lowest:.7f} over {len(texts)} texts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
