"""Engine processes: each in its own session (process group), killed as a whole.

An engine dies with the agent thread that started it (Linux PR_SET_PDEATHSIG), and its group
id is written under `$ITACHI_HOME/run/engines/`, so an agent restarted after a SIGKILL kills
whatever the previous one left behind before it takes new work.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

_PR_SET_PDEATHSIG = 1
_libc: Any = None


def _load_libc() -> None:
    """Load libc in the parent: the child between fork and exec must only make the prctl call."""
    global _libc
    if _libc is None and sys.platform.startswith("linux"):
        _libc = ctypes.CDLL("libc.so.6", use_errno=True)


def _die_with_parent() -> None:
    if _libc is not None:
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def start(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], stdin: int | IO[Any] | None,
          stderr: IO[Any]) -> subprocess.Popen[str]:
    """Start argv in a new session with line-buffered text pipes on stdout (and stdin if asked).

    The child gets SIGKILL when the thread that started it ends: start it from the thread that
    waits for it.
    """
    _load_libc()
    return subprocess.Popen(
        list(argv), cwd=cwd, env=dict(env), stdin=stdin, stdout=subprocess.PIPE, stderr=stderr,
        text=True, encoding="utf-8", errors="replace", bufsize=1, start_new_session=True,
        preexec_fn=_die_with_parent,
    )


def kill_tree(proc: subprocess.Popen[Any], grace_s: float = 3.0) -> None:
    """SIGTERM the process group, then SIGKILL what is left after `grace_s`."""
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            continue
        # The leader is gone; members of its group may not be.
        if not group_alive(proc.pid):
            return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _start_time(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


class ProcessRegistry:
    """Process groups this agent started, on disk, so a successor can clean up after a crash."""

    def __init__(self, directory: Path) -> None:
        self._dir = directory
        self._dir.mkdir(parents=True, exist_ok=True)

    def record(self, pid: int, owner: str) -> None:
        (self._dir / f"{pid}.json").write_text(json.dumps({"owner": owner, "start": _start_time(pid)}))

    def forget(self, pid: int) -> None:
        (self._dir / f"{pid}.json").unlink(missing_ok=True)

    def reap_stale(self) -> list[int]:
        """Kill the groups a previous agent left (if still the same processes); return their ids."""
        killed = []
        for path in self._dir.glob("*.json"):
            pid = int(path.stem)
            try:
                recorded = json.loads(path.read_text()).get("start")
            except (OSError, ValueError):
                recorded = None
            current = _start_time(pid)
            if group_alive(pid) and (current is None or recorded is None or current == recorded):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGKILL)
                killed.append(pid)
            path.unlink(missing_ok=True)
        if killed:
            time.sleep(0.1)
        return killed
