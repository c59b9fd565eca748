"""Keep the embedded Postgres alive under `itachi up`: notice that it died and start it again.

The postmaster is not our child (pg_ctl daemonises it), so it is watched through the pid in
`pgdata/postmaster.pid`. A restart can fail while the dead server's backends still hold its
shared memory: it is retried with back-off, and every failure is printed with the reason.
Requests meanwhile answer 503 at once (see `chalicelib.kernel.database`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHECK_EVERY_S = 1.0
MAX_BACKOFF_S = 10.0


def postmaster_pid(pgdata: Path) -> int | None:
    try:
        return int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None


def process_alive(pid: int | None) -> bool:
    """Alive and not a zombie (a zombie still answers kill(pid, 0))."""
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # the server runs as another user when we are root
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


class PostgresWatch:
    """A thread that restarts the embedded server (`handle.ensure_postgres_running()`) if it dies."""

    def __init__(self, handle: Any, pgdata: Path, say: Callable[[str], None] = print) -> None:
        self._handle = handle
        self._pgdata = pgdata
        self._say = say
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="postgres-watch", daemon=True)
        self.restarts = 0

    @property
    def running(self) -> bool:
        return process_alive(postmaster_pid(self._pgdata))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=15)

    def _run(self) -> None:
        backoff = 0.5
        while not self._stop.wait(CHECK_EVERY_S):
            if self.running:
                backoff = 0.5
                continue
            self._say("Embedded Postgres is not running; restarting it...")
            try:
                self._handle.ensure_postgres_running()
            except Exception as exc:  # printed for the user; the next check tries again
                self._say(f"Embedded Postgres did not restart ({type(exc).__name__}); "
                          f"retrying in {backoff:.1f}s")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)
                continue
            self.restarts += 1
            self._say("Embedded Postgres restarted.")


# Postgres writes a failed statement, its parameters and the error's DETAIL/CONTEXT (which
# quote the offending value) to its log by default. Requests carry secrets and private text:
# log errors tersely and never a statement or a parameter.
PRIVATE_LOG_SETTINGS = {
    "log_min_error_statement": "panic",
    "log_error_verbosity": "terse",
    "log_parameter_max_length": "0",
    "log_parameter_max_length_on_error": "0",
    "log_statement": "none",
}


def keep_values_out_of_the_log(url: str) -> None:
    """Apply PRIVATE_LOG_SETTINGS to the server (ALTER SYSTEM, then reload)."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        for name, value in PRIVATE_LOG_SETTINGS.items():
            conn.execute(sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value)))
        conn.execute("SELECT pg_reload_conf()")
