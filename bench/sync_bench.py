"""File sync figures: push and pull throughput for many small files, and what sync adds to SessionStart.

Runs `itachi up --no-agent` in a throwaway home, makes two machine homes (each with its own
checkout of the same origin and the same passphrase file), then:

1. pushes N small files from machine A (encrypt + POST, in this process, timed end to end);
2. pulls them on machine B (GET + verify + decrypt + write), and checks the bytes;
3. times the SessionStart hook on B as a real process, alternating runs with sync on (nothing
   new to pull: one extra metadata GET in the hook's parallel reads) and off (`ITACHI_SYNC=0`).

    python -m bench.sync_bench -n 1000 --hook-runs 60
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent.sync.crypto import derive_key
from agent.sync.session import open_checkout, sync_session
from bench.memory_api import ItachiServer
from chalicelib.contracts.api_transport import ApiClient
from chalicelib.contracts.local_home import ClientConfig

ORIGIN = "git@github.com:bench/sync-bench.git"


def machine(root: Path, name: str, passphrase: str) -> tuple[Path, Path]:
    home, repo = root / name / "itachi", root / name / "repo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "remote", "add", "origin", ORIGIN], cwd=repo, check=True)
    key = root / name / ".itachi-key"
    key.write_text(passphrase + "\n")
    key.chmod(0o600)
    return home, repo


def use_key(root: Path, name: str) -> None:
    os.environ["ITACHI_SYNC_KEY_FILE"] = str(root / name / ".itachi-key")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(len(ordered) * q) - 1)]


def run_throughput(server: ItachiServer, root: Path, n: int, size: int) -> dict[str, float]:
    a_home, a_repo = machine(root, "a", "bench passphrase 0123456789")
    b_home, b_repo = machine(root, "b", "bench passphrase 0123456789")
    total = 0
    for i in range(n):
        body = (f"# note {i}\n" + "lorem ipsum dolor sit amet " * (size // 27 + 1))[:size]
        path = a_repo / "notes" / f"{i // 100:02d}" / f"note-{i:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
        total += len(body.encode())
    results: dict[str, float] = {"files": n, "bytes": total}
    for label, home, repo, key in (("push", a_home, a_repo, "a"), ("pull", b_home, b_repo, "b")):
        use_key(root, key)
        api = ApiClient(ClientConfig(home, server.url, server.key), timeout_s=120)
        checkout = open_checkout(home, repo)
        started = time.perf_counter()
        with sync_session(checkout, api, machine_id=f"bench-{key}") as session:
            report = session.push() if label == "push" else session.pull()
        elapsed = time.perf_counter() - started
        moved = len(report.pushed) if label == "push" else len(report.written)  # type: ignore[union-attr]
        assert moved == n, f"{label}: {moved} of {n} files"
        results[f"{label}_s"] = elapsed
    for i in range(0, n, max(1, n // 50)):
        rel = Path("notes") / f"{i // 100:02d}" / f"note-{i:05d}.md"
        assert (a_repo / rel).read_bytes() == (b_repo / rel).read_bytes(), rel
    started = time.perf_counter()
    for i in range(20):
        derive_key(b"bench", i.to_bytes(16, "big"), 100_000)
    results["kdf_ms"] = (time.perf_counter() - started) / 20 * 1000
    return results


def run_hook(root: Path, server: ItachiServer, runs: int) -> dict[str, list[float]]:
    home, repo = root / "b" / "itachi", root / "b" / "repo"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ITACHI_")}
    env.update(ITACHI_HOME=str(home), ITACHI_API_URL=server.url, ITACHI_API_KEY=server.key,
               ITACHI_SYNC_KEY_FILE=str(root / "b" / ".itachi-key"), CLAUDE_CONFIG_DIR=str(root / "claude"))
    timings: dict[str, list[float]] = {"sync on": [], "sync off": []}
    for i in range(runs + 4):
        for label in ("sync on", "sync off"):
            payload = json.dumps({"session_id": f"bench-{i}", "cwd": str(repo), "source": "startup",
                                  "hook_event_name": "SessionStart"}).encode()
            started = time.perf_counter()
            switch = {"ITACHI_SYNC": "1" if label == "sync on" else "0"}
            subprocess.run([sys.executable, "-I", "-m", "hooks.session_start"], input=payload, check=True,
                           capture_output=True, env={**env, **switch})
            if i >= 4:  # warm-up
                timings[label].append((time.perf_counter() - started) * 1000)
    log = (home / "logs" / "hooks.log").read_text()
    assert "sync_worker" not in log, "nothing was new, so no worker should have started"
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("-n", type=int, default=1000, help="files to sync")
    parser.add_argument("--size", type=int, default=1024, help="bytes per file")
    parser.add_argument("--hook-runs", type=int, default=60)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="itachi-sync-bench-"))
    server = ItachiServer().start()
    try:
        r = run_throughput(server, root, args.n, args.size)
        mb = r["bytes"] / 1_000_000
        print(f"files {int(r['files'])}, {mb:.2f} MB plaintext, PBKDF2 (100k) {r['kdf_ms']:.1f} ms per key")
        for label in ("push", "pull"):
            s = r[f"{label}_s"]
            print(f"{label}: {s:.1f} s, {r['files'] / s:.1f} files/s, {mb / s:.3f} MB/s")
        hook = run_hook(root, server, args.hook_runs)
        print("| SessionStart | runs | p50 ms | p95 ms |")
        for label, values in hook.items():
            p50, p95 = statistics.median(values), percentile(values, 0.95)
            print(f"| {label} | {len(values)} | {p50:.1f} | {p95:.1f} |")
        on, off = hook["sync on"], hook["sync off"]
        print(f"added by sync: p50 {statistics.median(on) - statistics.median(off):+.1f} ms, "
              f"p95 {percentile(on, 0.95) - percentile(off, 0.95):+.1f} ms")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
