"""moto in server mode as a child process: the local SQS endpoint."""

from __future__ import annotations

import subprocess
import sys
from functools import partial

from infra.local.processes import free_port, http_ok, spawn, wait_until

STARTS = 3  # a server that exits before it answers (its port taken meanwhile) is started again
READY_S = 60  # importing moto takes seconds, more on a loaded box


def start_moto(port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """Start moto's server on 127.0.0.1; return (process, endpoint URL) once it answers."""
    return wait_for_moto(*spawn_moto(port))


def spawn_moto(port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """Start moto's server without waiting for it (`wait_for_moto`): it takes a second or two to
    import, which the caller spends on other work. Spawn from the main thread: the child is
    stopped when the thread that spawned it ends. Without `port`, a free one: free when chosen,
    so another process may bind it first (`wait_for_moto` then starts it again)."""
    port = port or free_port()
    proc = spawn([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, f"http://127.0.0.1:{port}"


def _answered_or_gone(proc: subprocess.Popen[bytes], endpoint: str) -> bool:
    return proc.poll() is not None or http_ok(f"{endpoint}/moto-api/")


def wait_for_moto(proc: subprocess.Popen[bytes], endpoint: str) -> tuple[subprocess.Popen[bytes], str]:
    """(process, endpoint) of the server once it answers. One that exits first, as when another
    process bound the port it was given, is started again on a free port, up to STARTS times."""
    for _ in range(STARTS):
        wait_until(partial(_answered_or_gone, proc, endpoint), timeout_s=READY_S, what="moto server")
        if proc.poll() is None:
            return proc, endpoint
        proc, endpoint = spawn_moto()
    raise RuntimeError(f"moto server exited before it answered, {STARTS} times (last code {proc.returncode})")
