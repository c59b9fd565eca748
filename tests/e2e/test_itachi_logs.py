"""`itachi logs --task ID` over a real `itachi up`: the task's lines from the API, the dispatch
consumer and the agent, in one format, from `$ITACHI_HOME/logs`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.agent_harness import fake_engine_env, make_repo
from tests.support.orchestration import client_for, new_task, wait_for
from tests.support.up_process import UpProcess

pytestmark = pytest.mark.e2e


def itachi_logs(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ITACHI_")}
    env["ITACHI_HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "agent.cli", "logs", *args], capture_output=True, text=True,
                          timeout=60, env=env)


def test_itachi_logs_finds_a_tasks_lines_across_the_api_the_dispatcher_and_the_agent(
        tmp_path: Path, up_root: Path) -> None:
    home, repo = up_root / "home", make_repo(tmp_path / "repo")
    up = UpProcess(home, env={**fake_engine_env(tmp_path / "engine.log"), "ITACHI_MACHINE_ID": "logbox"})
    try:
        client = client_for(up.url, json.loads((home / "config.json").read_text())["api_key"])
        other = new_task(client, "[fake:write=other.txt]", repo=str(repo))
        task = new_task(client, "[fake:write=done.txt]", repo=str(repo))
        ids = (other["id"], task["id"])
        wait_for(lambda: all(client.get(f"/api/tasks/{i}")["status"] == "completed" for i in ids),
                 timeout_s=120, what="the tasks to complete")
        found = wait_for(lambda: (out := itachi_logs(home, "--task", task["id"][:8]).stdout)
                         and "agent" in out and "ended: completed" in out and out, timeout_s=30,
                         what="the agent's last line")
        errors_only = itachi_logs(home, "--task", task["id"][:8], "--level", "ERROR")
        agent_only = itachi_logs(home, "--task", task["id"], "--function", "agent")
    finally:
        up.stop()

    lines = found.splitlines()
    functions = {line.split()[3] for line in lines}
    assert {"api", "dispatch-consumer", "agent"} <= functions, found
    assert all(task["id"][:8] in line for line in lines)
    assert not any(other["id"][:8] in line for line in lines)
    messages = " | ".join(lines)
    for said in ("task created", "task dispatched", "task claimed", "started (attempt 1)", "task finished"):
        assert said in messages, found
    assert errors_only.stdout.strip() == "no log lines match"
    assert agent_only.stdout and all(line.split()[3] == "agent" for line in agent_only.stdout.splitlines())
