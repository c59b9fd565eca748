"""Subagent spawn latency on a real `itachi up` with a no-op engine, beside plain tasks.

From POST /api/agents/runs to the engine process starting (its first line of Python), one run
at a time, p50/p95 over `--runs` runs of the built-in `devops` profile; then the same count of
plain tasks (POST /api/tasks) on the same stack, so the two share machine, load and path. A run
takes the task path plus the run row, the profile's lessons at the claim, and the engine started
in stream-json input mode.

    python bench/agent_spawn.py --runs 40
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
from collections.abc import Callable
from pathlib import Path

from bench.dispatch import NOOP_ENGINE, TERMINAL, Api, engine_starts, make_repo, pct, start_up, wait


def measure(api: Api, log: Path, count: int, start: Callable[[int], str]) -> list[float]:
    """Milliseconds from the POST to the engine's start, one at a time (each waits for the last to end)."""
    latencies = []
    for i in range(count):
        t0 = time.time()
        task_id = start(i)
        started = wait(lambda t=task_id: engine_starts(log).get(t), 30)
        latencies.append((started - t0) * 1000)
        wait(lambda t=task_id: api.call("GET", f"/api/tasks/{t}")["status"] in TERMINAL, 30, 0.02)
    return latencies


def line(what: str, values: list[float]) -> str:
    return (f"{what}, {len(values)} one at a time: p50 {statistics.median(values):.0f} ms, "
            f"p95 {pct(values, 0.95):.0f} ms, max {max(values):.0f} ms")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=40)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="itachi-bench-"))
    log = root / "engine.log"
    env = {**os.environ, "ITACHI_ENGINE_CLAUDE_COMMAND": f"{sys.executable} {NOOP_ENGINE}",
           "BENCH_ENGINE_LOG": str(log), "ITACHI_MACHINE_ID": "bench", "ITACHI_WORKTREE_POLICY": "remove"}
    repo = make_repo(root / "repo")
    proc, url = start_up(root / "home", env)
    try:
        api = Api(url, json.loads((root / "home" / "config.json").read_text())["api_key"])
        online = lambda: any(m["status"] == "online" for m in api.call("GET", "/api/machines")["machines"])  # noqa: E731
        wait(online, 60, 0.2)

        def spawn(i: int) -> str:
            run = api.call("POST", "/api/agents/runs", {"profile": "devops", "prompt": f"noop {i}",
                                                        "project": "bench", "repo": str(repo)})
            return str(run["task_id"])

        def task(i: int) -> str:
            body = {"project": "bench", "repo": str(repo), "engine": "claude", "description": f"noop {i}"}
            return str(api.call("POST", "/api/tasks", body)["id"])

        measure(api, log, 3, spawn)  # warm both paths up
        runs = measure(api, log, args.runs, spawn)
        tasks = measure(api, log, args.runs, task)
        finished = api.call("GET", "/api/agents/runs?status=completed&limit=500")["runs"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    print(f"machine: {os.cpu_count()} cores {platform.machine()}, Python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.1f}")
    print(line("subagent spawn, POST /api/agents/runs -> engine process start", runs))
    print(line("plain task, POST /api/tasks -> engine process start (same stack)", tasks))
    print(f"runs finished completed by the outcome hook: {len(finished)} of {args.runs + 3}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
