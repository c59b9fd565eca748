"""`itachi up` from nothing: ready line, health, auth, one instance per home, clean stop."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tests.support.up_process import UpProcess, postgres_running_for


def _status(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, object]]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _mcp_memory_status(home: Path) -> str:
    """Call `memory_status` through the entry `ITACHI_HOME=home itachi mcp --print-config` prints,
    with the `mcp` SDK's client and its default environment (which drops ITACHI_HOME)."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    printed = subprocess.run([sys.executable, "-m", "agent.cli", "mcp", "--print-config"], check=True,
                             capture_output=True, text=True, timeout=60,
                             env={**os.environ, "ITACHI_HOME": str(home)})
    entry = json.loads(printed.stdout)["mcpServers"]["itachi"]

    async def call() -> str:
        params = StdioServerParameters(command=entry["command"], args=[*entry["args"], "--project", "p"])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("memory_status", {})
            return str(result.content[0].text)  # type: ignore[union-attr]

    return anyio.run(call)


def test_up_serves_health_guards_the_api_and_stops_cleanly(up_root: Path) -> None:
    home = up_root / "home"
    up = UpProcess(home, extra_args=["--no-agent"])
    try:
        status, body = _status(f"{up.url}/health")
        assert status == 200
        assert body["database"] == {"status": "up"} and body["queues"] == {"status": "up"}

        status, body = _status(f"{up.url}/api/status")
        assert status == 401

        config = json.loads((home / "config.json").read_text())
        assert config["api_url"] == up.url
        assert stat.S_IMODE((home / "config.json").stat().st_mode) == 0o600
        status, body = _status(f"{up.url}/api/status",
                               {"Authorization": f"Bearer {config['api_key']}"})
        assert status == 200

        second = subprocess.run(
            [sys.executable, "-m", "agent.cli", "up", "--home", str(home), "--port", "0"],
            capture_output=True, text=True, timeout=60, env=dict(os.environ),
        )
        assert second.returncode == 1
        assert "already running" in second.stdout

        status_cmd = subprocess.run([sys.executable, "-m", "agent.cli", "status", "--home", str(home)],
                                    capture_output=True, text=True, timeout=60)
        assert "database   up" in status_cmd.stdout
        assert "scheduler  up" in status_cmd.stdout

        # `itachi mcp` finds this stack on its non-default port as every other command does.
        assert "Project p: 0 memories" in _mcp_memory_status(home)
    finally:
        code = up.stop()
    assert code == 0
    assert not postgres_running_for(home / "pgdata")
    assert not (home / "run" / "state.json").exists()
