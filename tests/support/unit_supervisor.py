"""A stand-in for systemd that the tests can run: it reads a service unit and runs it as systemd would.

`python unit_supervisor.py UNIT STATE_DIR` starts the unit's `ExecStart=` with a service's clean
environment (HOME, USER, LOGNAME, SHELL, systemd's default PATH) plus its `Environment=` lines, in
its `WorkingDirectory=`, output appended to `StandardOutput=append:PATH`. When the main process
exits it kills what is left of its process group and, with `Restart=always`, starts it again
`RestartSec=` seconds later. On SIGTERM it stops the service (SIGTERM to the main process,
SIGKILL to its group after `TimeoutStopSec=`) and exits. Every start and exit is a JSON line in
STATE_DIR/events.jsonl. Standard library only: it runs outside the test process.

The parsing follows systemd.service(5) and systemd.syntax(7), independently of the code that
renders units: words in double quotes with C escapes, `%%` for `%`, and `$$` for `$` in command lines.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

SYSTEMD_DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
DEFAULT_RESTART_S = 0.1  # systemd's RestartSec default


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """{section: {key: [values in order]}} (a key may repeat: Environment=)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        if current is None or "=" not in line:
            raise ValueError(f"not a unit line: {raw!r}")
        key, value = line.split("=", 1)
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def _specifiers(text: str) -> str:
    if "%" in text.replace("%%", ""):
        raise ValueError(f"unsupported specifier in {text!r}")
    return text.replace("%%", "%")


def words(value: str) -> list[str]:
    """A quoted setting's words (C escapes inside double quotes), specifiers resolved."""
    return [_specifiers(word) for word in shlex.split(value, posix=True)]


def exec_words(value: str) -> list[str]:
    """ExecStart='s argv: `$$` is a literal `$` (a lone `$NAME` would be expanded; units here have none)."""
    argv = [word.replace("$$", "\0") for word in words(value)]
    if any("$" in word for word in argv):
        raise ValueError(f"unsupported variable expansion in {value!r}")
    return [word.replace("\0", "$") for word in argv]


def environment(values: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for value in values:
        for assignment in words(value):
            name, _, setting = assignment.partition("=")
            env[name] = setting
    return env


def service_env(service: dict[str, list[str]]) -> dict[str, str]:
    """What systemd's user manager gives a service: the user's basics and the unit's Environment=."""
    user = pwd.getpwuid(os.getuid())
    base = {"HOME": os.environ.get("HOME", user.pw_dir), "USER": user.pw_name, "LOGNAME": user.pw_name,
            "SHELL": user.pw_shell or "/bin/sh", "PATH": SYSTEMD_DEFAULT_PATH}
    return {**base, **environment(service.get("Environment", []))}


class Supervisor:
    def __init__(self, unit: Path, state: Path) -> None:
        self.service = parse_unit(unit.read_text(encoding="utf-8"))["Service"]
        self.state = state
        self.stopping = threading.Event()
        self.child: subprocess.Popen[bytes] | None = None

    def _last(self, key: str, default: str) -> str:
        return self.service.get(key, [default])[-1]

    def _event(self, **fields: object) -> None:
        with open(self.state / "events.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"at": time.time(), **fields}) + "\n")

    def _start(self) -> subprocess.Popen[bytes]:
        argv = exec_words(self._last("ExecStart", ""))
        cwd = _specifiers(self._last("WorkingDirectory", os.environ.get("HOME", "/")))
        output = self._last("StandardOutput", "inherit")
        appended = output.startswith("append:")
        log = open(_specifiers(output.removeprefix("append:")), "ab") if appended else None  # noqa: SIM115
        try:
            child = subprocess.Popen(argv, env=service_env(self.service), cwd=cwd, stdin=subprocess.DEVNULL,
                                     stdout=log, stderr=subprocess.STDOUT if log else None,
                                     start_new_session=True)
        finally:
            if log:
                log.close()
        self._event(event="started", pid=child.pid)
        return child

    def run(self) -> int:
        signal.signal(signal.SIGTERM, lambda *_: self.stopping.set())
        restart = self._last("Restart", "no")
        delay = float(self._last("RestartSec", str(DEFAULT_RESTART_S)).removesuffix("s"))
        while not self.stopping.is_set():
            self.child = child = self._start()
            while child.poll() is None and not self.stopping.wait(0.05):
                pass
            if self.stopping.is_set():
                self._stop(child)
                break
            self._kill_group(child.pid)
            self._event(event="exited", pid=child.pid, returncode=child.returncode)
            if restart != "always":
                break
            self.stopping.wait(delay)
        return 0

    def _stop(self, child: subprocess.Popen[bytes]) -> None:
        child.send_signal(signal.SIGTERM)  # KillMode=mixed: the main process first
        try:
            child.wait(float(self._last("TimeoutStopSec", "90").removesuffix("s")))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        self._kill_group(child.pid)
        self._event(event="stopped", pid=child.pid, returncode=child.returncode)

    @staticmethod
    def _kill_group(pgid: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def read_events(state: Path) -> list[dict[str, Any]]:
    path = state / "events.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


if __name__ == "__main__":
    unit_path, state_dir = Path(sys.argv[1]), Path(sys.argv[2])
    state_dir.mkdir(parents=True, exist_ok=True)
    sys.exit(Supervisor(unit_path, state_dir).run())
