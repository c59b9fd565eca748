"""What a subagent's memory scope and cost guard cost, on a real `itachi up`.

Scope: the prompt hook's request (`GET /api/memory/search` with project_limit=3,
global_limit=2, graph=true, as `hooks/user_prompt_submit.py` sends it) timed from one warm
client, alternating a plain session's request, the same without the graph context, and a
subagent's (the hook's request plus `X-Itachi-Agent-Run`: the server looks the run's scope up
and searches within it, with no graph context). Every
query is new to the server (a numbered suffix), so each one is embedded, as a real prompt is.
Cost guard: the agent's per-line accounting (`agent/tasks/cost_guard.py`) over Claude Code-shaped
stream-json lines, in process.

    python -m bench.agent_scope -n 60
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from bench.dispatch import Api, pct, start_up

SCOPED, OWN = "bench/ledger", "bench/payments"
PROMPTS = ["how do we reconcile the quarterly ledger totals with the bank export",
           "which retry policy did we choose for the payment webhooks",
           "what is the rule for editing a closed accounting period",
           "where do the settlement reports get their exchange rates"]
TOPICS = ["ledger totals", "payment webhooks", "closed periods", "settlement reports", "exchange rates",
          "bank exports", "refunds", "chargebacks"]


def seed(api: Api, rows: int) -> None:
    projects, categories = (SCOPED, OWN, "_global"), ("fact", "decision", "project_rule")
    memories = [{"project": projects[i % 3], "category": categories[(i // 3) % 3], "source": "user",
                 "content": f"Note {i} about {TOPICS[i % len(TOPICS)]}: detail {i * 7919 % 10007}."}
                for i in range(rows)]
    for start in range(0, rows, 100):
        api.call("POST", "/api/memory/batch", {"memories": memories[start:start + 100]})


def search_ms(api: Api, query: str, run_id: str | None, graph: bool = True) -> float:
    params = {"query": query, "project": OWN, "project_limit": 3, "global_limit": 2, "mode": "hybrid",
              "graph": "true" if graph else "false"}
    headers = {"Authorization": f"Bearer {api.key}", **({"X-Itachi-Agent-Run": run_id} if run_id else {})}
    request = urllib.request.Request(f"{api.url}/api/memory/search?{urllib.parse.urlencode(params)}",
                                     headers=headers)
    t0 = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as response:
        json.loads(response.read())
    return (time.perf_counter() - t0) * 1000


def guard_us_per_line(lines: int) -> tuple[float, float]:
    """Microseconds per line: assistant lines carrying usage, and other lines."""
    from agent.tasks.cost_guard import CostGuard
    from chalicelib.contracts.engine_events import parse_line

    class Runner:  # the guard only calls these when the budget is passed (never here)
        def event(self, *args: Any) -> None: ...
        def stop(self, reason: str) -> None: ...

    assistant = json.dumps({"type": "assistant", "message": {
        "id": "msg_1", "model": "claude-sonnet-4-5", "role": "assistant",
        "content": [{"type": "text", "text": "Checking the ledger export. " * 20}],
        "usage": {"input_tokens": 1200, "output_tokens": 300, "cache_read_input_tokens": 40000}}})
    other = json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok " * 200}]}})
    figures = []
    for line in (assistant, other):
        guard = CostGuard(Runner(), 10_000)  # type: ignore[arg-type]
        events = parse_line("claude", line)
        t0 = time.perf_counter()
        for i in range(lines):
            guard.see(line.replace("msg_1", f"msg_{i}", 1), events)
        figures.append((time.perf_counter() - t0) * 1e6 / lines)
    return figures[0], figures[1]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=60, help="searches per way")
    ap.add_argument("--rows", type=int, default=3000, help="memories seeded")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="itachi-bench-"))
    proc, url = start_up(root / "home", {**os.environ, "ITACHI_MACHINE_ID": "bench"})
    try:
        api = Api(url, json.loads((root / "home" / "config.json").read_text())["api_key"])
        seed(api, args.rows)
        api.call("POST", "/api/agents/profiles", {"name": "ledger-analyst", "system_prompt": "Ledgers.",
                                                  "memory_projects": [SCOPED],
                                                  "memory_categories": ["fact", "project_rule"]})
        run = api.call("POST", "/api/agents/runs", {"profile": "ledger-analyst", "prompt": "bench",
                                                    "project": OWN, "machine": "nowhere"})
        stamp = int(time.time())
        for i in range(4):  # warm both paths
            search_ms(api, f"{PROMPTS[i]} warm {stamp}", None if i % 2 else run["id"])
        plain: list[float] = []
        bare: list[float] = []
        scoped: list[float] = []
        for i in range(args.n):
            plain.append(search_ms(api, f"{PROMPTS[i % 4]} #{stamp}-{i}p", None))
            bare.append(search_ms(api, f"{PROMPTS[i % 4]} #{stamp}-{i}b", None, graph=False))
            scoped.append(search_ms(api, f"{PROMPTS[i % 4]} #{stamp}-{i}s", run["id"]))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    with_usage, without = guard_us_per_line(20_000)
    print(f"machine: {os.cpu_count()} cores {platform.machine()}, Python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.1f}; {args.rows} memories")
    for what, values in (("plain session", plain), ("plain session without graph context", bare),
                         ("subagent (X-Itachi-Agent-Run, no graph context)", scoped)):
        print(f"prompt hook search, {what}, {len(values)} queries: p50 {statistics.median(values):.1f} ms, "
              f"p95 {pct(values, 0.95):.1f} ms")
    print(f"cost guard per stream line: {with_usage:.1f} us (assistant line with usage), "
          f"{without:.2f} us (other lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
