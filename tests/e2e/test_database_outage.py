"""The embedded Postgres killed under load: quick 503s, a restart by `itachi up`, nothing lost.

The latency figures (every answer within about 2 s) are measured by `bench/database_outage.py`;
this test checks that every request is answered (a 503 with Retry-After, never a hang or a
500), that `itachi up` brings the server back by itself, and that every memory acknowledged
with a 201 is still there afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request
from pathlib import Path

import pytest

from infra.local.postgres_watch import postmaster_pid, process_alive
from tests.support.up_process import UpProcess
from tests.support.write_load import WriteLoad


def _wait(probe: object, timeout_s: float, what: str, up: UpProcess) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if probe():  # type: ignore[operator]
            return
        time.sleep(0.1)
    said = [line for line in up.lines() if not line.startswith("{")]
    raise AssertionError(f"no {what} within {timeout_s:.0f}s; itachi up said:\n" + "".join(said[-20:]))


@pytest.fixture
def home(up_root: Path) -> Path:
    return up_root / "home"


def test_killing_the_embedded_postgres_under_load_gives_quick_503s_and_loses_nothing(home: Path) -> None:
    up = UpProcess(home, extra_args=["--no-agent"])
    try:
        key = json.loads((home / "config.json").read_text())["api_key"]
        load = WriteLoad(up.url, key, threads=4, client_timeout_s=20)
        load.start()
        _wait(lambda: load.count(201) >= 20, 120, "writes before the outage", up)

        killed_pid = postmaster_pid(home / "pgdata")
        assert killed_pid is not None
        os.kill(killed_pid, signal.SIGKILL)
        killed_at = time.monotonic()
        _wait(lambda: load.count(503, after=killed_at) >= 1, 60, "a 503 during the outage", up)
        _wait(lambda: process_alive(postmaster_pid(home / "pgdata"))
              and postmaster_pid(home / "pgdata") != killed_pid, 120, "postgres restarted by itachi up", up)
        restarted_at = time.monotonic()
        _wait(lambda: load.count(201, after=restarted_at) >= 20, 120, "writes after the restart", up)
        answers = load.stop()
    finally:
        code = up.stop()

    assert code == 0
    assert {a.status for a in answers} <= {201, 503}, sorted({a.status for a in answers})
    assert all(a.retry_after for a in answers if a.status == 503)
    assert any("Embedded Postgres restarted" in line for line in up.lines())

    # Everything acknowledged survived: start again on the same home and read it all back.
    again = UpProcess(home, extra_args=["--no-agent"])
    try:
        stored = [a.memory_id for a in answers if a.status == 201]
        for memory_id in stored:
            request = urllib.request.Request(f"{again.url}/api/memory/{memory_id}",
                                             headers={"Authorization": f"Bearer {key}"})
            with urllib.request.urlopen(request, timeout=30) as resp:
                assert resp.status == 200
    finally:
        assert again.stop() == 0
