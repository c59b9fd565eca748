"""Latency of `memory_search` through MCP, as an MCP client sees it: `itachi mcp` (stdio) and `/mcp`.

Starts `itachi up` in a throwaway home, stores memories in one project, then drives a real
`itachi mcp` subprocess with the `mcp` SDK's own client and times each tool call (the MCP
round trip: JSON-RPC over the pipe, the server's HTTP call to the API, the hybrid search), and
the API's own `/mcp` over Streamable HTTP with the same client (the JSON-RPC request, the tool's
work inside the server, the hybrid search). The plain API search is timed on the same queries
for comparison; the three ways alternate query by query, so a busy moment hits them alike.

    python -m bench.mcp_latency -n 200 --memories 500

To compare two checkouts, run this file with the other checkout's interpreter and on its path
(`PYTHONPATH=OTHER OTHER/.venv/bin/python bench/mcp_latency.py`): the server and `itachi mcp`
are then the other checkout's.
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
STDIO = "memory_search via itachi mcp (stdio)"
HTTP = "memory_search via the API's /mcp (Streamable HTTP)"
REST = "GET /api/memory/search (same queries)"


def seed(server: ItachiServer, count: int) -> None:
    client = server.client()
    batch = [{"project": PROJECT, "category": "fact",
              "content": f"Note {i} about {TOPICS[i % len(TOPICS)]}: decision number {i} and its reason."}
             for i in range(count)]
    for start in range(0, count, 250):
        client.call("POST", "/api/memory/batch", {"memories": batch[start:start + 250]})


def query(i: int) -> str:
    return f"what about {TOPICS[i % len(TOPICS)]}"


async def time_all(server: ItachiServer, n: int) -> tuple[dict[str, list[float]], float]:
    """Each query through `itachi mcp` (stdio), the API's `/mcp` and the plain REST search, in turn."""
    import httpx2
    from mcp import Client, StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client

    env = {"ITACHI_API_URL": server.url, "ITACHI_API_KEY": server.key, "ITACHI_PROJECT": PROJECT,
           "ITACHI_HOME": tempfile.mkdtemp(prefix="itachi-mcp-bench-"), "PATH": os.environ.get("PATH", ""),
           "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "agent.cli", "mcp"], env=env, cwd=ROOT)
    api = server.client()
    samples: dict[str, list[float]] = {STDIO: [], HTTP: [], REST: []}
    started = time.perf_counter()
    async with Client(params, read_timeout_seconds=120) as stdio:
        connect_ms = (time.perf_counter() - started) * 1000
        async with (httpx2.AsyncClient(headers={"Authorization": f"Bearer {server.key}"},
                                       timeout=httpx2.Timeout(120)) as http,
                    Client(streamable_http_client(f"{server.url}/mcp?project={PROJECT}", http_client=http),
                           read_timeout_seconds=120) as remote):
            for client in (stdio, remote):
                await client.call_tool("memory_search", {"query": "warm up"})
            for i in range(n):
                for label, client in ((STDIO, stdio), (HTTP, remote)):
                    t0 = time.perf_counter()
                    result = await client.call_tool("memory_search", {"query": query(i)})
                    samples[label].append((time.perf_counter() - t0) * 1000)
                    assert not result.is_error, result
                api.search(query(i), PROJECT, 8)
                samples[REST].append(api.last_ms)
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
        server.client().search("warm up", PROJECT, 8)
        samples, connect_ms = anyio.run(time_all, server, args.n)
    finally:
        server.stop()
    print(f"server and itachi mcp from {ROOT}")
    for label, values in samples.items():
        print(f"{label}: n={len(values)} p50 {percentile(values, 50):.1f} ms, "
              f"p95 {percentile(values, 95):.1f} ms, mean {statistics.fmean(values):.1f} ms")
    print(f"itachi mcp start + handshake: {connect_ms:.0f} ms; {args.memories} memories in {PROJECT}")


if __name__ == "__main__":
    main()
