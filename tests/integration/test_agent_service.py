"""`itachi service install|uninstall|status` in a temporary HOME, with no systemctl, with one that
cannot reach a user manager, and with the fake systemctl over the tests' unit supervisor; and
`itachi doctor` on whether the agent is supervised."""

from __future__ import annotations

import fcntl
import json
import os
import pwd
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.cli import main
from tests.fakes import fake_systemctl
from tests.support.agent_harness import pid_alive
from tests.support.orchestration import wait_for
from tests.support.unit_supervisor import read_events

UNIT = "itachi-agent.service"
MACHINE_KEY = "itk_" + "m" * 40


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A user's HOME with a joined machine's state directory, and a PATH with no service manager."""
    home = tmp_path / "user"
    state = home / ".local" / "share" / "itachi"
    state.mkdir(parents=True)
    (state / "config.json").write_text(json.dumps({"api_url": "http://127.0.0.1:9", "api_key": MACHINE_KEY,
                                                   "machine_id": "box-1"}))
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ITACHI_HOME", str(state))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    yield home
    fake_systemctl.stop(home, UNIT)  # whatever a failed test left running


def _units(user: Path) -> Path:
    return user / ".config" / "systemd" / "user"


def _itachi(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _linger_file() -> Path:
    return Path("/var/lib/systemd/linger") / pwd.getpwuid(os.getuid()).pw_name


def test_without_systemctl_install_writes_and_enables_the_unit_and_says_nothing_runs_it(
        user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _itachi(capsys, "service", "install", "--manager", "systemd")

    unit = _units(user) / UNIT
    link = _units(user) / "default.target.wants" / UNIT
    assert code == 0, out
    assert f"ExecStart={sys.executable} -m agent.cli agent" in unit.read_text()
    assert MACHINE_KEY not in unit.read_text()
    assert link.is_symlink() and link.resolve() == unit.resolve()
    assert "systemctl is not available here, so nothing starts it now" in out
    if not _linger_file().exists():
        assert "loginctl is not available: the agent starts when you log in, not at boot" in out

    code, out, _ = _itachi(capsys, "service", "status", "--manager", "systemd")
    assert code == 1
    assert "installed: yes\n  enabled: yes\n  running: no (from the files" in out

    code, out, _ = _itachi(capsys, "service", "uninstall", "--manager", "systemd")
    assert code == 0
    assert f"Removed {unit}" in out
    assert not unit.exists() and not link.is_symlink()
    code, out, _ = _itachi(capsys, "service", "uninstall", "--manager", "systemd")
    assert (code, out.strip()) == (0, f"No {unit}: nothing to remove.")


def test_where_systemd_does_not_answer_install_enables_the_unit_by_its_link_and_says_why(
        user: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    systemctl = tmp_path / "bin" / "systemctl"
    systemctl.write_text("#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n")
    systemctl.chmod(0o755)

    code, out, _ = _itachi(capsys, "service", "install", "--manager", "systemd")

    assert code == 0, out
    assert (_units(user) / "default.target.wants" / UNIT).is_symlink()
    assert ("but `systemctl --user daemon-reload` failed (Failed to connect to bus: No medium found), "
            "so nothing starts it now") in out


def test_with_systemctl_install_enables_and_starts_the_unit_and_uninstall_stops_it(
        user: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_systemctl.install(tmp_path / "bin")

    code, out, _ = _itachi(capsys, "service", "install", "--manager", "systemd")

    assert code == 0, out
    assert f"Started {UNIT}" in out
    calls = (user / ".fake-systemd" / "calls.log").read_text().splitlines()
    assert calls[:2] == ["systemctl --user daemon-reload", f"systemctl --user enable --now {UNIT}"]
    if _linger_file().exists():
        assert "Lingering is on" in out
    else:
        assert calls[2] == f"loginctl --no-ask-password enable-linger {pwd.getpwuid(os.getuid()).pw_name}"
        assert "Enabled lingering: the agent starts at boot" in out
    state = fake_systemctl.state_dir(user, UNIT)
    agent = wait_for(lambda: [e["pid"] for e in read_events(state) if e["event"] == "started"],
                     what="the supervisor to start the agent", timeout_s=30)[0]
    code, out, _ = _itachi(capsys, "service", "status", "--manager", "systemd")
    assert code == 0, out
    assert "running: yes (systemctl: active, enabled" in out

    code, out, _ = _itachi(capsys, "service", "uninstall", "--manager", "systemd")

    assert code == 0, out
    assert f"systemctl --user disable --now {UNIT}" in (user / ".fake-systemd" / "calls.log").read_text()
    assert "the agent is stopped and disabled" in out
    assert not (_units(user) / UNIT).exists()
    wait_for(lambda: not pid_alive(int(agent)), what="the agent to stop", timeout_s=30)


def test_install_refuses_a_state_directory_without_a_key(
        user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = Path(os.environ["ITACHI_HOME"])
    (state / "config.json").write_text(json.dumps({"api_url": "http://127.0.0.1:9"}))

    code, _, err = _itachi(capsys, "service", "install", "--manager", "systemd")

    assert code == 1
    assert f"cannot install the service: {state / 'config.json'} has no api_key" in err
    assert not (_units(user) / UNIT).exists()


def test_without_launchctl_install_writes_the_plist_and_uninstall_removes_it(
        user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _itachi(capsys, "service", "install", "--manager", "launchd")

    plist = user / "Library" / "LaunchAgents" / "com.itachi.agent.plist"
    assert code == 0, out
    assert "<key>KeepAlive</key>" in plist.read_text()
    assert "launchctl is not available here, so nothing loads it now" in out

    code, out, _ = _itachi(capsys, "service", "uninstall", "--manager", "launchd")
    assert code == 0
    assert not plist.exists()


def _doctor_agent_line(capsys: pytest.CaptureFixture[str]) -> str:
    main(["doctor", "--port", "1"])
    return next(line for line in capsys.readouterr().out.splitlines() if "] agent:" in line)


def test_doctor_reports_a_joined_machine_whose_agent_is_not_supervised_until_its_unit_runs_it(
        user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = Path(os.environ["ITACHI_HOME"])

    unsupervised = _doctor_agent_line(capsys)
    main(["service", "install", "--manager", "systemd"])
    capsys.readouterr()
    installed_idle = _doctor_agent_line(capsys)
    (state / "run").mkdir(exist_ok=True)
    with open(state / "run" / "agent-box-1.lock", "a") as lock:  # what a running agent holds
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        running = _doctor_agent_line(capsys)
        code, status, _ = _itachi(capsys, "service", "status")

    assert unsupervised == ("[FIX] agent: the agent of machine box-1 is not supervised: a crash or a reboot "
                            f"stops it. Run: itachi service install --home {state}")
    assert installed_idle.startswith(f"[FIX] agent: {_units(user) / UNIT} is installed but no agent runs")
    assert running == f"[ok ] agent: run and restarted by {_units(user) / UNIT}"
    assert (code, "running: yes (from the files" in status) == (0, True)


def test_doctor_finds_nothing_to_supervise_where_no_machine_joined(
        user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = Path(os.environ["ITACHI_HOME"])
    (state / "config.json").write_text(json.dumps({"api_url": "http://127.0.0.1:9", "api_key": MACHINE_KEY}))

    line = _doctor_agent_line(capsys)

    assert line == "[ok ] agent: no agent for this state directory (`itachi up` runs its own)"
