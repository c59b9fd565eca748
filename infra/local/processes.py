"""Child-process helpers for the local stack: free ports, die-with-parent, readiness waits."""

from __future__ import annotations

import ctypes
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.3)
        return sock.connect_ex((host, port)) == 0


def _die_with_parent() -> None:
    """Ask Linux to SIGTERM this child when its parent dies (even by SIGKILL)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


def spawn(argv: Sequence[str], **kwargs: object) -> subprocess.Popen[bytes]:
    """Start a child in its own session (a terminal Ctrl-C reaches only us, and we stop it in
    order) that is still terminated if this process dies."""
    return subprocess.Popen(list(argv), preexec_fn=_die_with_parent, start_new_session=True,
                            **kwargs)  # type: ignore[call-overload]


def wait_until(probe: Callable[[], bool], *, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if probe():
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"{what} did not become ready within {timeout_s:.0f}s")


def http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as resp:  # noqa: S310 (loopback only)
            return 200 <= resp.status < 500
    except OSError:
        return False


def stop(proc: subprocess.Popen[bytes] | None, timeout_s: float = 5.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(2)
