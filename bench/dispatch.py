"""Task dispatch latency and one agent's throughput, on a real `itachi up` with a no-op engine.

Latency: from POST /api/tasks to the engine process starting (its first line of Python),
one task at a time, p50/p95 over `--tasks` tasks. Throughput: `--burst` tasks posted at
once; tasks per minute until the last one completes. The engine is `bench/noop_engine.py`:
it logs its start time and prints a Claude-style result.

    python bench/dispatch.py --tasks 50 --burst 60
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

NOOP_ENGINE = Path(__file__).resolve().parent / "noop_engine.py"
READY = re.compile(r"Itachi API ready on (http://\S+)")
TERMINAL = {"completed", "failed", "cancelled", "timed_out"}


class Api:
    def __init__(self, url: str, key: str) -> None:
        self.url, self.key = url, key

    def call(self, method: str, path: str, body: Any = None) -> Any:
        req = urllib.request.Request(self.url + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": f"Bearer {self.key}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    run = lambda *a: subprocess.run(["git", *a], cwd=path, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    (path / "README.md").write_text("bench\n")
    run("add", "-A")
    run("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "init")
    return path


def start_up(home: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """Start `itachi up`, its output to a file (a full pipe would stall it); return it and its URL."""
    home.mkdir(parents=True)
    out = home.parent / "up.log"
    with open(out, "wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "up", "--home", str(home), "--port", "0"],
                                stdout=sink, stderr=subprocess.STDOUT, env=env)
    match = wait(lambda: READY.search(out.read_text(errors="replace")), 180, 0.1)
    return proc, match.group(1)


def engine_starts(log: Path) -> dict[str, float]:
    if not log.exists():
        return {}
    return {task: float(t) for task, t in (line.split() for line in log.read_text().splitlines() if line)}


def wait(probe: Any, timeout_s: float, every_s: float = 0.005) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(every_s)
    raise TimeoutError("benchmark step timed out")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=50)
    ap.add_argument("--burst", type=int, default=60)
    ap.add_argument("--concurrency", type=int, default=2, help="the agent's max concurrent tasks")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="itachi-bench-"))
    log = root / "engine.log"
    env = {**os.environ, "ITACHI_ENGINE_CLAUDE_COMMAND": f"{sys.executable} {NOOP_ENGINE}",
           "BENCH_ENGINE_LOG": str(log), "ITACHI_MACHINE_ID": "bench",
           "ITACHI_AGENT_MAX_CONCURRENT": str(args.concurrency), "ITACHI_WORKTREE_POLICY": "remove"}
    repo = make_repo(root / "repo")
    proc, url = start_up(root / "home", env)
    try:
        api = Api(url, json.loads((root / "home" / "config.json").read_text())["api_key"])
        machines = lambda: api.call("GET", "/api/machines")["machines"]  # noqa: E731
        wait(lambda: any(m["status"] == "online" for m in machines()), 60, 0.2)
        body = {"project": "bench", "repo": str(repo), "engine": "claude"}
        latencies = []
        for i in range(args.tasks):
            t0 = time.time()
            tid = api.call("POST", "/api/tasks", {**body, "description": f"noop {i}"})["id"]
            started = wait(lambda tid=tid: engine_starts(log).get(tid), 30)
            latencies.append((started - t0) * 1000)
            wait(lambda tid=tid: api.call("GET", f"/api/tasks/{tid}")["status"] in TERMINAL, 30, 0.02)
        t0 = time.monotonic()
        ids = [api.call("POST", "/api/tasks", {**body, "description": f"burst {i}"})["id"]
               for i in range(args.burst)]
        wait(lambda: all(api.call("GET", f"/api/tasks/{i}")["status"] in TERMINAL for i in ids), 600, 0.25)
        elapsed = time.monotonic() - t0
        done = sum(api.call("GET", f"/api/tasks/{i}")["status"] == "completed" for i in ids)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    print(f"machine: {os.cpu_count()} cores {platform.machine()}, Python {platform.python_version()}")
    print(f"dispatch latency, POST /api/tasks -> engine process start, {len(latencies)} tasks one at a time: "
          f"p50 {statistics.median(latencies):.0f} ms, p95 {pct(latencies, 0.95):.0f} ms, "
          f"max {max(latencies):.0f} ms")
    print(f"throughput, one agent (max {args.concurrency} concurrent), no-op engine, {args.burst} tasks: "
          f"{done} completed in {elapsed:.1f} s = {args.burst / elapsed * 60:.0f} tasks/min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
