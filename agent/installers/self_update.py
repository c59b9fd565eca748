"""`/update` and `/restart` on the agent's side: drain, let running tasks end, update, start again.

While draining the agent reports itself `draining` (the server sends it no new task) and hands
back any task it is sent; once its running tasks have ended it runs the update (an `update`
only), then replaces its process with a new one (same pid, same arguments) whose first heartbeat
tells the server it is back, with its version.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from agent.agent_context import log
from agent.installers.update_source import CODE_ROOT, UpdateRefused, update_command

UPDATE_TIMEOUT_S = 600
Runner = Callable[..., "subprocess.CompletedProcess[str]"]


def run_update(env: Mapping[str, str], run: Runner = subprocess.run, code_root: Path = CODE_ROOT) -> bool:
    """Install the update from its configured source (`update_source.py`); False if refused or failed."""
    with tempfile.TemporaryDirectory(prefix="itachi-update-") as workdir:
        try:
            command = update_command(env, Path(workdir), code_root)
        except UpdateRefused as exc:
            log.error("%s", exc)
            return False
        try:
            done = run(command, capture_output=True, text=True, timeout=UPDATE_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            log.error("update command %s failed: %s", command[0], type(exc).__name__)
            return False
    if done.returncode != 0:
        log.error("update command %s exited %d: %s", command[0], done.returncode, done.stderr[-500:])
        return False
    log.info("updated with %s", " ".join(command[:3]))
    return True


class SelfRestart:
    def __init__(self, kind: str, env: Mapping[str, str], active_tasks: Callable[[], int],
                 stopping: threading.Event, before_exec: Callable[[], None]) -> None:
        self.kind, self._env = kind, env
        self._active, self._stopping, self._before_exec = active_tasks, stopping, before_exec

    def start(self) -> None:
        threading.Thread(target=self._run, name=f"self-{self.kind}", daemon=True).start()

    def _run(self) -> None:
        log.info("%s requested: draining (%d running task(s))", self.kind, self._active())
        while self._active() and not self._stopping.wait(0.5):
            pass
        if self._stopping.is_set():
            return
        if self.kind == "update":
            self._update()
        log.info("%s: restarting the agent", self.kind)
        self._before_exec()
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])  # noqa: S606 (this same agent)

    def _update(self) -> None:
        run_update(self._env)
