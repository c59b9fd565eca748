"""Kill the embedded Postgres under write load and measure how `itachi up` answers meanwhile.

Starts `itachi up --no-agent` in a temporary home, runs 4 writer threads (POST /api/memory),
SIGKILLs the postmaster, and prints: answers by status during the outage, the latency of the
503s (p50/p95/max), how long until `itachi up` had Postgres back and until the next 201, and
whether every acknowledged memory is still there.

    .venv/bin/python -m bench.database_outage
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

from infra.local.postgres_watch import postmaster_pid, process_alive
from tests.support.up_process import UpProcess
from tests.support.write_load import WriteLoad


def _wait(probe: object, timeout_s: float) -> float:
    start = time.monotonic()
    while not probe():  # type: ignore[operator]
        if time.monotonic() - start > timeout_s:
            raise SystemExit("condition not met in time")
        time.sleep(0.05)
    return time.monotonic()


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="itachi-bench-outage-"))
    home = root / "home"
    up = UpProcess(home, extra_args=["--no-agent"])
    try:
        key = json.loads((home / "config.json").read_text())["api_key"]
        load = WriteLoad(up.url, key, threads=4, client_timeout_s=60)
        load.start()
        _wait(lambda: load.count(201) >= 50, 120)
        old = postmaster_pid(home / "pgdata")
        assert old is not None
        os.kill(old, signal.SIGKILL)
        killed = time.monotonic()
        back = _wait(lambda: process_alive(postmaster_pid(home / "pgdata"))
                     and postmaster_pid(home / "pgdata") != old, 120)
        first_ok = _wait(lambda: load.count(201, after=back) >= 1, 120)
        time.sleep(3)
        answers = load.stop()
        during = [a for a in answers if killed <= a.started < first_ok]
        waits = sorted(a.elapsed_s for a in during if a.status == 503)
        stored = [a.memory_id for a in answers if a.status == 201]
        missing = 0
        for memory_id in stored:
            request = urllib.request.Request(f"{up.url}/api/memory/{memory_id}",
                                             headers={"Authorization": f"Bearer {key}"})
            try:
                urllib.request.urlopen(request, timeout=30).close()
            except OSError:
                missing += 1
    finally:
        up.stop()
        shutil.rmtree(root, ignore_errors=True)
    print(f"answers during the outage: {dict(Counter(a.status for a in during))}")
    if waits:
        print(f"503 latency: p50 {statistics.median(waits) * 1000:.0f} ms, "
              f"p95 {waits[int(len(waits) * 0.95) - 1] * 1000:.0f} ms, max {waits[-1] * 1000:.0f} ms")
    slowest = max(a.elapsed_s for a in answers)
    print(f"all answers: {dict(Counter(a.status for a in answers))}; slowest {slowest:.2f} s")
    print(f"postgres back after {back - killed:.1f} s; first 201 after {first_ok - killed:.1f} s")
    print(f"acknowledged memories: {len(stored)}, missing afterwards: {missing}")


if __name__ == "__main__":
    main()
