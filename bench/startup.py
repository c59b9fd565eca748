"""Time from `itachi up` to its ready line, cold (fresh ITACHI_HOME) and warm (existing home).

`.venv/bin/python bench/startup.py [--runs 3] [--no-local-model] [--providers onnx torch]`. Each run starts
`.venv/bin/itachi up --home H --port 0 --no-agent`, waits for "Itachi API ready on", sends
SIGTERM, and checks that the process exits cleanly and that no postgres is left running for H.
`--no-local-model` configures OpenAI embeddings (a key that is never used, a base URL on
127.0.0.1) so that the ready line does not wait for the local embedding model to load.
`--providers` times each local embedding runtime in turn within every run (ONNX Runtime and
torch load the same model), so their figures share the machine's load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ITACHI = ROOT / ".venv" / "bin" / "itachi"
READY = "Itachi API ready on"


def postgres_running_for(home: Path) -> list[int]:
    """Pids of postgres processes whose command line names this home's data directory."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "postgres" in cmdline and str(home) in cmdline:
            pids.append(int(proc.name))
    return pids


NO_LOCAL_MODEL = {"ITACHI_EMBEDDING_PROVIDER": "openai", "OPENAI_API_KEY": "bench-not-used",
                  "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}


def one_run(home: Path, extra_env: dict[str, str], timeout_s: float = 120) -> tuple[float, float]:
    """Return (seconds to the ready line, seconds to exit after SIGTERM)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **extra_env}
    env.pop("DATABASE_URL", None)
    started = time.perf_counter()
    proc = subprocess.Popen([str(ITACHI), "up", "--home", str(home), "--port", "0", "--no-agent"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert proc.stdout is not None
    ready_after = None
    seen: list[str] = []
    while time.perf_counter() - started < timeout_s:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if READY in line:
            ready_after = time.perf_counter() - started
            break
    if ready_after is None:
        proc.kill()
        raise RuntimeError("no ready line:\n" + "".join(seen[-20:]))
    stop_started = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=60)
    stopped_after = time.perf_counter() - stop_started
    if code != 0:
        raise RuntimeError(f"itachi up exited with {code} after SIGTERM")
    time.sleep(0.5)
    left = postgres_running_for(home)
    if left:
        raise RuntimeError(f"postgres still running for {home}: pids {left}")
    return ready_after, stopped_after


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-local-model", action="store_true")
    parser.add_argument("--providers", nargs="+", default=["local"], help="local, onnx, torch")
    args = parser.parse_args()
    variants = {"openai": NO_LOCAL_MODEL} if args.no_local_model else {
        p: {"ITACHI_EMBEDDING_PROVIDER": p} for p in args.providers}
    cold: dict[str, list[float]] = {v: [] for v in variants}
    warm: dict[str, list[float]] = {v: [] for v in variants}
    stops: list[float] = []
    for _ in range(args.runs):
        for name, extra in variants.items():
            home = Path(tempfile.mkdtemp(prefix="itachi-bench-"))
            try:
                ready, stop = one_run(home, extra)
                cold[name].append(ready)
                stops.append(stop)
                ready, stop = one_run(home, extra)
                warm[name].append(ready)
                stops.append(stop)
            finally:
                shutil.rmtree(home, ignore_errors=True)
    for name in variants:
        print(f"{name} cold (fresh home): median {statistics.median(cold[name]):.2f} s, "
              f"runs {', '.join(f'{t:.2f}' for t in cold[name])}")
        print(f"{name} warm (existing home): median {statistics.median(warm[name]):.2f} s, "
              f"runs {', '.join(f'{t:.2f}' for t in warm[name])}")
    print(f"SIGTERM to exit: median {statistics.median(stops):.2f} s; every run exited 0 "
          f"with no postgres left for its home")
    return 0


if __name__ == "__main__":
    sys.exit(main())
