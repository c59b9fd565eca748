"""`itachi up` supervises its agent: SIGKILL it mid-task and a new one runs the task to the end."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from chalicelib.contracts.api_transport import ApiClient
from infra.local.home import read_json
from tests.support.agent_harness import fake_engine_env, make_repo, pid_alive
from tests.support.orchestration import client_for, new_task, wait_for
from tests.support.up_process import UpProcess


def _engine_events(log: Path) -> list[dict[str, object]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def test_a_killed_agent_is_restarted_its_engines_die_and_the_task_finishes_on_the_next_attempt(
        up_root: Path) -> None:
    root = up_root
    home, log, repo = root / "home", root / "engine.log", make_repo(root / "repo")
    env = {**fake_engine_env(log), "ITACHI_AGENT_POLL_S": "1", "ITACHI_AGENT_HEARTBEAT_S": "1",
           "ITACHI_AGENT_VISIBILITY_S": "3"}
    up = UpProcess(home, env=env)
    try:
        client: ApiClient = client_for(up.url, json.loads((home / "config.json").read_text())["api_key"])
        old_agent = wait_for(lambda: read_json(home / "run" / "state.json").get("agent_pid"),
                             timeout_s=30, what="the agent to start")
        task = new_task(client, "[fake:child] [fake:sleep_once=120] [fake:write=done.txt]", repo=str(repo))
        start = wait_for(lambda: [e for e in _engine_events(log) if e["event"] == "start"],
                         timeout_s=60, what="the engine to start")[-1]
        child = wait_for(lambda: [e for e in _engine_events(log) if e["event"] == "child"],
                         timeout_s=30, what="the engine's child")[-1]

        os.kill(old_agent, signal.SIGKILL)

        new_agent = wait_for(lambda: (pid := read_json(home / "run" / "state.json").get("agent_pid"))
                             != old_agent and pid and pid_alive(pid) and pid,
                             timeout_s=10, what="a new agent")
        assert not pid_alive(old_agent)  # reaped, not a zombie
        wait_for(lambda: not pid_alive(int(start["pid"])) and not pid_alive(int(child["child_pid"])),  # type: ignore[call-overload]
                 timeout_s=10, what="the engine and its child to die with the agent")
        done = wait_for(lambda: (t := client.get(f"/api/tasks/{task['id']}"))["status"] in
                        {"completed", "failed", "cancelled", "timed_out"} and t,
                        timeout_s=120, what="the task to finish")
        status = client.get("/api/status")
        assert status["health"]["status"] == "ok"
    finally:
        assert up.stop() == 0
    assert (done["status"], done["attempts"]) == ("completed", 2)
    assert new_agent != old_agent
    assert any("The local agent exited" in line for line in up.lines())
