"""Onboarding a machine: `itachi machines invite` on an admin's machine, `itachi join` on a second
home against a running API (real Postgres, SQS on moto): the machine key, the hooks, the agent."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from chalicelib.auth.adapters.key_repository import invite_units
from chalicelib.auth.services.machine_onboarding import MachineOnboarding
from chalicelib.kernel.errors import Forbidden
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, wait_for


def _itachi(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agent.cli", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def second_home(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A new machine's user: its own HOME (for ~/.claude) and ITACHI_HOME, no key in its environment."""
    user = tmp_path / "user2"
    home = user / ".local" / "share" / "itachi"
    user.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ITACHI_", "CLAUDE_CONFIG_DIR"))}
    env |= {"HOME": str(user), "ITACHI_HOME": str(home), "ITACHI_AGENT_HEARTBEAT_S": "1",
            "ITACHI_AGENT_POLL_S": "1"}
    yield home, env
    pid_file = home / "run" / "agent.pid"
    if pid_file.exists():
        with suppress(OSError, ValueError):
            os.killpg(int(pid_file.read_text()), signal.SIGTERM)


def test_itachi_join_installs_the_hooks_starts_a_registered_agent_and_the_token_works_once(
        api: RunningApi, tmp_path: Path, second_home: tuple[Path, dict[str, str]]) -> None:
    home, env = second_home
    admin_env = {**os.environ, "ITACHI_HOME": str(tmp_path / "admin"), "ITACHI_API_URL": api.url,
                 "ITACHI_API_KEY": api.key}
    invited = _itachi("machines", "invite", "--machine", "joiner", env=admin_env, cwd=tmp_path)
    assert invited.returncode == 0, invited.stderr
    command = next(line.split() for line in invited.stdout.splitlines() if "itachi join" in line)
    assert command[:3] == ["itachi", "join", api.url]
    token = command[command.index("--token") + 1]

    joined = _itachi("join", api.url, "--token", token, env=env, cwd=tmp_path)

    assert joined.returncode == 0, joined.stdout + joined.stderr
    config_path = home / "config.json"
    assert stat.S_IMODE(config_path.stat().st_mode) == 0o600
    config = json.loads(config_path.read_text())
    assert (config["api_url"], config["machine_id"]) == (api.url, "joiner")
    assert config["api_key"].startswith("itk_") and config["api_key"] != api.key
    settings = json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text())
    assert "launch.py user_prompt_submit --itachi-client claude" in json.dumps(settings["hooks"])

    admin = client_for(api.url, api.key)
    online = wait_for(lambda: [m for m in admin.get("/api/machines")["machines"]
                               if m["id"] == "joiner" and m["status"] == "online"],
                      what="the joined agent's heartbeat", timeout_s=90)
    assert online[0]["seconds_since_heartbeat"] < 90
    keys = admin.get("/api/keys")["keys"]
    assert [(k["kind"], k["machine_id"]) for k in keys] == [("machine", "joiner")]
    machine = client_for(api.url, config["api_key"])
    with pytest.raises(Exception, match="403"):
        machine.post("/api/machines/heartbeat", {"machine_id": "someone-else", "agent_instance": "x"})

    again = _itachi("join", api.url, "--token", token, "--no-agent", "--no-hooks", env=env, cwd=tmp_path)
    assert again.returncode == 1
    assert "already used or expired" in again.stderr


def test_an_expired_invite_is_refused(api: RunningApi) -> None:
    later = datetime.now(UTC) + timedelta(minutes=61)
    units = invite_units(api.container.db)
    _, token = MachineOnboarding(units).invite("test", "late", ttl_minutes=60)

    with pytest.raises(Forbidden, match="expired"):
        MachineOnboarding(units, clock=lambda: later).join(token, None)
    assert MachineOnboarding(units).join(token, None).machine_id == "late"  # still valid now: unspent


def test_itachi_join_for_another_machine_than_the_invites_is_refused_and_an_invite_must_name_one(
        api: RunningApi, tmp_path: Path, second_home: tuple[Path, dict[str, str]]) -> None:
    home, env = second_home
    admin_env = {**os.environ, "ITACHI_HOME": str(tmp_path / "admin"), "ITACHI_API_URL": api.url,
                 "ITACHI_API_KEY": api.key}
    unnamed = _itachi("machines", "invite", env=admin_env, cwd=tmp_path)
    invited = _itachi("machines", "invite", "--machine", "newbox", env=admin_env, cwd=tmp_path)
    token = invited.stdout.split("--token ", 1)[1].split()[0]

    taken = _itachi("join", api.url, "--token", token, "--machine-id", "busybox", "--no-agent", "--no-hooks",
                    env=env, cwd=tmp_path)

    assert unnamed.returncode == 2 and "--machine" in unnamed.stderr
    assert "Run this on newbox" in invited.stdout
    assert taken.returncode == 1
    assert "cannot join: this invite is for machine 'newbox', not 'busybox'" in taken.stderr
    assert not (home / "config.json").exists()
