"""Install, remove and inspect the agent's service: what both service managers share.

Each manager (`systemd_service.py`, `launchd_service.py` beside this one) writes its file itself and
then asks the service manager to load, enable and start it. Where the manager's tool is missing
or does not answer (no user session bus, a container), the files are still written, and the
outcome says that nothing runs the service now.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path


def run_tool(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=60, check=False)


@dataclass
class Outcome:
    """What an install or uninstall did, line by line; `running`: the manager runs the agent now."""

    ok: bool = True
    running: bool = False
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ServiceStatus:
    manager: str
    path: Path
    installed: bool
    enabled: bool
    running: bool | None  # None: nobody could say
    home: Path | None  # the state directory the installed service runs with
    detail: str = ""


def agent_running(home: Path) -> bool:
    """True when an agent holds one of the state directory's agent locks (`run/agent-<id>.lock`)."""
    for path in (home / "run").glob("agent-*.lock"):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
    return False


def up_supervisor(home: Path) -> int | None:
    """The pid of the `itachi up` that runs and restarts this state directory's agent, if one does."""
    from chalicelib.contracts.local_home import read_json
    from infra.local.postgres_watch import process_alive

    state = read_json(home / "run" / "state.json")
    pid = state.get("pid")
    return pid if isinstance(pid, int) and state.get("agent_pid") and process_alive(pid) else None
