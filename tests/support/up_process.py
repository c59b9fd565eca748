"""Run `itachi up` as a real subprocess for end-to-end tests."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

import psutil

from tests.support.agent_harness import TEMP_ROOTS

READY = re.compile(r"Itachi API ready on (http://\S+)")


def _pump(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


class UpProcess:
    """`itachi up --home HOME --port 0` in the background; `url` once the ready line appears."""

    def __init__(self, home: Path, *, extra_args: list[str] | None = None,
                 env: dict[str, str] | None = None, timeout_s: float = 180, cwd: Path | None = None) -> None:
        self.home = home
        self.output: list[str] = []
        argv = [sys.executable, "-m", "agent.cli", "up", "--home", str(home), "--port", "0",
                *(extra_args or [])]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, env={**os.environ, **TEMP_ROOTS, **(env or {})}, cwd=cwd)
        self._lines: queue.Queue[str] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=_pump, args=(self.proc.stdout, self._lines), daemon=True).start()
        self.url = self._wait_ready(timeout_s)

    def _wait_ready(self, timeout_s: float) -> str:
        import time

        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                line = self._lines.get(timeout=0.5)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            self.output.append(line)
            match = READY.search(line)
            if match:
                return match.group(1)
        self.stop()
        raise AssertionError("itachi up never became ready:\n" + "".join(self.output[-40:]))

    def lines(self) -> list[str]:
        """Everything printed so far (the ready line included)."""
        while True:
            try:
                self.output.append(self._lines.get_nowait())
            except queue.Empty:
                return self.output

    def stop(self, timeout_s: float = 90) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return int(self.proc.returncode)


def postgres_running_for(pgdata: Path) -> bool:
    for proc in psutil.process_iter(attrs=["name", "cmdline"]):
        cmdline = proc.info.get("cmdline") or []
        if proc.info.get("name") == "postgres" and str(pgdata) in " ".join(cmdline):
            return True
    return False
