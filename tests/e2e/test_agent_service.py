"""`itachi join --service` on a new machine: the unit it installs runs the agent under a real supervisor
(the tests' stand-in for systemd, behind a fake `systemctl`); SIGKILL the agent and it is back after
the unit's restart delay, and the task queued for the machine while it was down runs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.fakes import fake_systemctl
from tests.support.agent_harness import TEMP_ROOTS, fake_engine_env, make_repo, pid_alive
from tests.support.orchestration import client_for, new_task, wait_for
from tests.support.unit_supervisor import parse_unit, read_events
from tests.support.up_process import UpProcess

UNIT = "itachi-agent.service"
TERMINAL = {"completed", "failed", "cancelled", "timed_out"}


def _itachi(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agent.cli", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def _machine_env(root: Path, user: Path, state: Path) -> dict[str, str]:
    """The new machine's shell: its own HOME and state directory, a fake systemctl and git on PATH."""
    bin_dir = root / "bin"
    fake_systemctl.install(bin_dir)
    (bin_dir / "git").symlink_to(str(shutil.which("git")))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ITACHI_", "CLAUDE_CONFIG_DIR"))}
    return {**env, **TEMP_ROOTS, **fake_engine_env(root / "engine.log"), "HOME": str(user),
            "ITACHI_HOME": str(state), "PATH": str(bin_dir), "ITACHI_AGENT_POLL_S": "1",
            "ITACHI_AGENT_HEARTBEAT_S": "1"}


def _starts(state: Path) -> list[dict[str, Any]]:
    return [e for e in read_events(state) if e["event"] == "started"]


def test_a_killed_agent_under_its_unit_is_back_within_the_restart_delay_and_runs_the_task_queued_meanwhile(
        up_root: Path) -> None:
    root = up_root
    user, repo = root / "user", make_repo(root / "repo")
    state = user / ".local" / "share" / "itachi"
    user.mkdir()
    env = _machine_env(root, user, state)
    up = UpProcess(root / "server", extra_args=["--no-agent"])
    supervisor = fake_systemctl.state_dir(user, UNIT)
    try:
        admin_key = json.loads((root / "server" / "config.json").read_text())["api_key"]
        admin = client_for(up.url, admin_key)
        admin_env = {**os.environ, "ITACHI_HOME": str(root / "admin"), "ITACHI_API_URL": up.url,
                     "ITACHI_API_KEY": admin_key}
        invited = _itachi("machines", "invite", "--machine", "svc-box", env=admin_env, cwd=root)
        token = invited.stdout.split("--token ", 1)[1].split()[0]

        joined = _itachi("join", up.url, "--token", token, "--service", "--no-hooks", env=env, cwd=root)

        assert joined.returncode == 0, joined.stdout + joined.stderr
        assert f"Started {UNIT}" in joined.stdout
        assert not (state / "run" / "agent.pid").exists()  # the unit runs it, not a background agent
        unit_text = (user / ".config" / "systemd" / "user" / UNIT).read_text()
        assert json.loads((state / "config.json").read_text())["api_key"] not in unit_text
        service = parse_unit(unit_text)["Service"]
        assert service["Restart"] == ["always"]
        restart_s = float(service["RestartSec"][0])
        wait_for(lambda: any(m["id"] == "svc-box" and m["status"] == "online"
                             for m in admin.get("/api/machines")["machines"]),
                 what="the supervised agent online", timeout_s=90)
        first = int(_starts(supervisor)[-1]["pid"])

        killed_at = time.time()
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: not pid_alive(first), what="the agent to die", timeout_s=10)
        task = new_task(admin, "[fake:write=done.txt]", repo=str(repo), machine="svc-box")
        queued_at = time.time()

        back = wait_for(lambda: [e for e in _starts(supervisor) if e["pid"] != first],
                        what="a new agent", timeout_s=restart_s + 60)[0]
        done = wait_for(lambda: (t := admin.get(f"/api/tasks/{task['id']}"))["status"] in TERMINAL and t,
                        what="the queued task to finish", timeout_s=120)
        status = _itachi("service", "status", env=env, cwd=root)
        doctor = _itachi("doctor", "--port", "1", env=env, cwd=root)
    finally:
        uninstalled = _itachi("service", "uninstall", env=env, cwd=root)
        fake_systemctl.stop(user, UNIT)
        up.stop()
    assert queued_at < float(back["at"])  # queued while no agent ran
    assert restart_s <= float(back["at"]) - killed_at <= restart_s + 5
    assert (done["status"], done["machine_id"]) == ("completed", "svc-box")
    assert "running: yes" in status.stdout
    unit_path = user / ".config" / "systemd" / "user" / UNIT
    assert f"[ok ] agent: run and restarted by {unit_path}" in doctor.stdout
    assert uninstalled.returncode == 0 and "the agent is stopped and disabled" in uninstalled.stdout
    assert not pid_alive(int(back["pid"]))
