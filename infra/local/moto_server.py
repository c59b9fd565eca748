"""moto in server mode as a child process: the local SQS endpoint."""

from __future__ import annotations

import subprocess
import sys

from infra.local.processes import free_port, http_ok, spawn, wait_until


def start_moto(port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """Start moto's server on 127.0.0.1; return (process, endpoint URL) once it answers."""
    port = port or free_port()
    proc = spawn([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    wait_until(lambda: http_ok(f"{endpoint}/moto-api/"), timeout_s=30, what="moto server")
    return proc, endpoint
