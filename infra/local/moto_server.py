"""moto in server mode as a child process: the local SQS endpoint."""

from __future__ import annotations

import subprocess
import sys

from infra.local.processes import free_port, http_ok, spawn, wait_until


def start_moto(port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """Start moto's server on 127.0.0.1; return (process, endpoint URL) once it answers."""
    proc, endpoint = spawn_moto(port)
    wait_for_moto(endpoint)
    return proc, endpoint


def spawn_moto(port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """Start moto's server without waiting for it (`wait_for_moto`): it takes a second or two to
    import, which the caller spends on other work. Spawn from the main thread: the child is
    stopped when the thread that spawned it ends."""
    port = port or free_port()
    proc = spawn([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, f"http://127.0.0.1:{port}"


def wait_for_moto(endpoint: str) -> None:
    wait_until(lambda: http_ok(f"{endpoint}/moto-api/"), timeout_s=30, what="moto server")
