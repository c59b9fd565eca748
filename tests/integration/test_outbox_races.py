"""The hook outbox under real concurrency: processes replaying one outbox at once, and a claim
left by a killed process, against the fake API over HTTP."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from hooks.outbox import CLAIM_SUFFIX, Outbox
from tests.conftest import REPO_ROOT
from tests.fakes.fake_itachi_api import FakeItachiApi


@pytest.fixture
def api() -> Iterator[FakeItachiApi]:
    with FakeItachiApi() as fake:
        yield fake


def spool(home: Path, count: int) -> Outbox:
    outbox = Outbox(home / "outbox")
    for n in range(count):
        outbox.put({"method": "POST", "path": "/api/memory", "body": {"n": n}, "key": f"k-{n}"}, "race")
    return outbox


def replayers(home: Path, url: str, count: int, stale_s: float) -> list[subprocess.Popen[bytes]]:
    """Start `count` replayers behind one barrier: each says it is ready, all start on one signal."""
    procs = [subprocess.Popen([sys.executable, "-m", "tests.support.outbox_replayer", str(home), url,
                               str(stale_s), "replay"], cwd=REPO_ROOT) for _ in range(count)]
    deadline = time.monotonic() + 60
    while len(list((home / "ready").glob("*"))) < count:
        alive = all(p.poll() is None for p in procs)
        assert alive and time.monotonic() < deadline, "a replayer never got ready"
        time.sleep(0.01)
    (home / "go").touch()
    return procs


class Run(NamedTuple):
    started: float
    ended: float
    delivered: int


def finish(procs: list[subprocess.Popen[bytes]], home: Path) -> list[Run]:
    """Wait for the replayers; answer each one's run, and check that they really raced."""
    for proc in procs:
        assert proc.wait(timeout=90) == 0
    runs = [Run(**json.loads(p.read_text())) for p in (home / "ran").glob("*.json")]
    first_end = min(run.ended for run in runs)
    assert len(runs) == len(procs)
    assert sum(run.started < first_end for run in runs) == len(procs)  # all were running at once
    return runs


def delivered(api: FakeItachiApi) -> list[int]:
    return sorted(body["n"] for body in api.posted("/api/memory"))


def left_in(outbox: Outbox) -> list[str]:
    return [p.name for p in outbox.root.iterdir() if p.name.endswith((".json", CLAIM_SUFFIX))]


def test_six_processes_replaying_one_outbox_send_every_request_exactly_once(
        tmp_path: Path, api: FakeItachiApi) -> None:
    outbox = spool(tmp_path, 80)

    runs = finish(replayers(tmp_path, api.url, 6, stale_s=300), tmp_path)

    assert sum(run.delivered > 0 for run in runs) > 1  # more than one contender won entries
    assert delivered(api) == list(range(80))
    assert left_in(outbox) == []


def test_a_claim_left_by_a_killed_process_is_taken_over_once_stale_and_sent_once(
        tmp_path: Path, api: FakeItachiApi) -> None:
    outbox = spool(tmp_path, 12)
    holder = subprocess.Popen([sys.executable, "-m", "tests.support.outbox_replayer", str(tmp_path), api.url,
                               "300", "claim"], cwd=REPO_ROOT, stdout=subprocess.PIPE)
    assert holder.stdout is not None
    claimed = holder.stdout.readline().decode().strip()
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    assert claimed.endswith(CLAIM_SUFFIX) and (outbox.root / claimed).exists()

    finish(replayers(tmp_path, api.url, 4, stale_s=1.0), tmp_path)

    assert delivered(api) == list(range(12))  # the killed process's entry too, and only once
    assert left_in(outbox) == []


def test_a_fresh_claim_on_an_entry_that_waited_long_is_not_taken_over(tmp_path: Path) -> None:
    outbox = spool(tmp_path, 1)
    (entry,) = outbox.pending(1)
    hour_ago = time.time() - 3600
    os.utime(entry, (hour_ago, hour_ago))  # spooled an hour ago; a rename keeps that time
    claimed = outbox.claim(entry)
    assert claimed is not None

    assert Outbox(outbox.root, stale_claim_s=300).pending(10) == []
    assert claimed.exists()  # still held by its claimer, not put back for another sender
