"""Latency of `memory_search` through `itachi mcp` (stdio), as an MCP client sees it.

Starts `itachi up` in a throwaway home, stores memories in one project, then drives a real
`itachi mcp` subprocess with the `mcp` SDK's own client and times each tool call (the MCP
round trip: JSON-RPC over the pipe, the server's HTTP call to the API, the hybrid search).
The plain API search is timed on the same queries for comparison.

    python -m bench.mcp_latency -n 200 --memories 500
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import anyio

from bench.memory_api import ROOT, ItachiServer, percentile

PROJECT = "bench/mcp"
TOPICS = ["pgvector index", "deploy freeze", "hook outbox", "worktree identity", "Telegram topics",
          "SQS dead letter queue", "embedding cache", "lesson confidence", "session briefing", "MEMORY.md"]


def seed(server: ItachiServer, count: int) -> None:
    client = server.client()
    batch = [{"project": PROJECT, "category": "fact",
              "content": f"Note {i} about {TOPICS[i % len(TOPICS)]}: decision number {i} and its reason."}
             for i in range(count)]
    for start in range(0, count, 250):
        client.call("POST", "/api/memory/batch", {"memories": batch[start:start + 250]})


async def time_stdio(server: ItachiServer, n: int) -> tuple[list[float], float]:
    from mcp import Client, StdioServerParameters

    env = {"ITACHI_API_URL": server.url, "ITACHI_API_KEY": server.key, "ITACHI_PROJECT": PROJECT,
           "ITACHI_HOME": tempfile.mkdtemp(prefix="itachi-mcp-bench-"), "PATH": os.environ.get("PATH", ""),
           "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "agent.cli", "mcp"], env=env, cwd=ROOT)
    started = time.perf_counter()
    async with Client(params, read_timeout_seconds=120) as client:
        connect_ms = (time.perf_counter() - started) * 1000
        await client.call_tool("memory_search", {"query": "warm up"})
        samples = []
        for i in range(n):
            t0 = time.perf_counter()
            query = f"what about {TOPICS[i % len(TOPICS)]}"
            result = await client.call_tool("memory_search", {"query": query})
            samples.append((time.perf_counter() - t0) * 1000)
            assert not result.is_error, result
    return samples, connect_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=200, help="timed searches")
    parser.add_argument("--memories", type=int, default=500)
    args = parser.parse_args()
    server = ItachiServer().start()
    try:
        seed(server, args.memories)
        api = server.client()
        api.search("warm up", PROJECT, 8)
        direct = []
        for i in range(args.n):
            api.search(f"what about {TOPICS[i % len(TOPICS)]}", PROJECT, 8)
            direct.append(api.last_ms)
        samples, connect_ms = anyio.run(time_stdio, server, args.n)
    finally:
        server.stop()
    for label, values in (("memory_search via itachi mcp (stdio)", samples),
                          ("GET /api/memory/search (same queries)", direct)):
        print(f"{label}: n={len(values)} p50 {percentile(values, 50):.1f} ms, "
              f"p95 {percentile(values, 95):.1f} ms, mean {statistics.fmean(values):.1f} ms")
    print(f"itachi mcp start + handshake: {connect_ms:.0f} ms; {args.memories} memories in {PROJECT}")


if __name__ == "__main__":
    main()
