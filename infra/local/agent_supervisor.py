"""Supervise the local task agent under `itachi up`: reap it, clean up after it, restart it.

A dead agent is waited for at once (no zombie), the engine process groups it recorded under
`$ITACHI_HOME/run/engines/` are killed (an engine's own children outlive a SIGKILLed agent
otherwise), and a new agent starts after a back-off that doubles on each quick death (1 s up
to 30 s) and resets once an agent has run for a minute. The new agent's first heartbeat tells
the server its predecessor is gone, which puts the tasks it was running back in the queue.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from infra.local.processes import stop

FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 30.0
STABLE_AFTER_S = 60.0


def kill_recorded_engines(engines_dir: Path) -> list[int]:
    """Kill every engine process group recorded by any agent of this home; return their ids."""
    from agent.engines.process_tree import ProcessRegistry  # the agent's own record of what it started

    killed: list[int] = []
    for machine_dir in sorted(p for p in engines_dir.glob("*") if p.is_dir()):
        killed += ProcessRegistry(machine_dir).reap_stale()
    return killed


class AgentSupervisor:
    def __init__(self, spawn: Callable[[], subprocess.Popen[bytes]], engines_dir: Path, *,
                 on_start: Callable[[int], None] = lambda pid: None,
                 say: Callable[[str], None] = print) -> None:
        self._spawn = spawn
        self._engines_dir = engines_dir
        self._on_start = on_start
        self._say = say
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._thread = threading.Thread(target=self._watch, name="agent-supervisor", daemon=True)
        self.restarts = 0

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def start(self) -> None:
        self._launch()
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            stop(self._proc)
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _launch(self) -> None:
        with self._lock:
            if self._stopping.is_set():
                return
            self._proc = self._spawn()
            self._started = time.monotonic()
        self._on_start(self._proc.pid)

    def _watch(self) -> None:
        backoff = FIRST_BACKOFF_S
        while not self._stopping.is_set():
            proc = self._proc
            if proc is None:
                return
            try:
                code = proc.wait(timeout=0.5)  # reaps it: a dead agent never lingers as a zombie
            except subprocess.TimeoutExpired:
                continue
            if self._stopping.is_set():
                return
            if time.monotonic() - self._started >= STABLE_AFTER_S:
                backoff = FIRST_BACKOFF_S
            killed = kill_recorded_engines(self._engines_dir)
            self._say(f"The local agent exited (code {code}); "
                      f"{len(killed)} engine process group(s) stopped; restarting it in {backoff:.0f}s")
            if self._stopping.wait(backoff):
                return
            backoff = min(backoff * 2, MAX_BACKOFF_S)
            self._launch()
            self.restarts += 1
