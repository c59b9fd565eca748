"""A fake `systemctl --user` (and `loginctl`) over the tests' unit supervisor.

Installed in a test's PATH as `systemctl` (`install(bin_dir)`), it answers what `itachi
service` asks: `daemon-reload`, `enable --now UNIT` (the `default.target.wants` link, then
`tests/support/unit_supervisor.py` runs `~/.config/systemd/user/UNIT` in the background),
`disable --now UNIT` (stops it, removes the link), `is-active UNIT` and `is-enabled UNIT`. As
`loginctl`, `enable-linger USER` succeeds. Every call is a line of
`$HOME/.fake-systemd/calls.log`; the supervisor's pid and events are in
`$HOME/.fake-systemd/<UNIT>/`. Standard library only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SUPERVISOR = Path(__file__).resolve().parents[1] / "support" / "unit_supervisor.py"


def state_dir(home: Path, unit: str) -> Path:
    return home / ".fake-systemd" / unit


def _supervisor_pid(state: Path) -> int | None:
    try:
        pid = int((state / "supervisor.pid").read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def _start(home: Path, unit: str) -> None:
    state = state_dir(home, unit)
    state.mkdir(parents=True, exist_ok=True)
    if _supervisor_pid(state):
        return
    with open(state / "supervisor.log", "ab") as log:
        proc = subprocess.Popen([sys.executable, str(SUPERVISOR), str(_unit_path(home, unit)), str(state)],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    (state / "supervisor.pid").write_text(str(proc.pid))


def stop(home: Path, unit: str) -> None:
    pid = _supervisor_pid(state_dir(home, unit))
    if pid is None:
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return  # exited, not yet reaped by whoever adopted it
        except (OSError, IndexError):
            return
        time.sleep(0.05)


def _unit_path(home: Path, unit: str) -> Path:
    return home / ".config" / "systemd" / "user" / unit


def _wants(home: Path, unit: str) -> Path:
    return home / ".config" / "systemd" / "user" / "default.target.wants" / unit


def systemctl(args: list[str], home: Path) -> int:
    if args[:1] != ["--user"]:
        print("this fake knows only --user", file=sys.stderr)
        return 1
    verb, rest = args[1], [a for a in args[2:] if a != "--now"]
    now = "--now" in args
    if verb == "daemon-reload":
        return 0
    unit = rest[0]
    if verb == "enable":
        if not _unit_path(home, unit).exists():
            print(f"Failed to enable unit: Unit file {unit} does not exist.", file=sys.stderr)
            return 1
        _wants(home, unit).parent.mkdir(parents=True, exist_ok=True)
        _wants(home, unit).unlink(missing_ok=True)
        _wants(home, unit).symlink_to(Path("..") / unit)
        if now:
            _start(home, unit)
        return 0
    if verb == "disable":
        _wants(home, unit).unlink(missing_ok=True)
        if now:
            stop(home, unit)
        return 0
    if verb == "is-active":
        active = _supervisor_pid(state_dir(home, unit)) is not None
        print("active" if active else "inactive")
        return 0 if active else 3
    if verb == "is-enabled":
        enabled = _wants(home, unit).is_symlink()
        print("enabled" if enabled else "disabled")
        return 0 if enabled else 1
    print(f"this fake does not know `{verb}`", file=sys.stderr)
    return 1


def install(bin_dir: Path) -> None:
    """Put `systemctl` and `loginctl` commands backed by this fake into bin_dir."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name in ("systemctl", "loginctl"):
        command = bin_dir / name
        command.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" {name} "$@"\n')
        command.chmod(0o755)


def main() -> int:
    name, args = sys.argv[1], sys.argv[2:]
    home = Path(os.environ["HOME"])
    calls = home / ".fake-systemd" / "calls.log"
    calls.parent.mkdir(parents=True, exist_ok=True)
    with open(calls, "a", encoding="utf-8") as fh:
        fh.write(" ".join([name, *args]) + "\n")
    if name == "loginctl":
        return 0 if [a for a in args if not a.startswith("--")][:1] == ["enable-linger"] else 1
    return systemctl(args, home)


if __name__ == "__main__":
    sys.exit(main())
