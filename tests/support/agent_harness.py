"""Run real agent processes against a test API: fake engines, a temp git repo, the dispatcher."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chalicelib.contracts.api_transport import ApiClient
from infra.local.sqs_dispatcher import SqsDispatcher
from tests.support.orchestration import DISPATCH_SPEC, wait_for

FAKE_ENGINE = Path(__file__).resolve().parents[1] / "fakes" / "fake_engine.py"
TERMINAL = {"completed", "failed", "cancelled", "timed_out"}


def make_repo(path: Path) -> Path:
    """A git repository with one commit."""
    path.mkdir(parents=True)
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "t@example.com"],
                 ["config", "user.name", "Tester"]):
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)
    (path / "README.md").write_text("# test repo\n")
    subprocess.run(["git", "add", "-A"], cwd=path, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-q", "-m", "initial"], cwd=path, check=True, capture_output=True)
    return path


# The agents the tests start take repositories under the temp folder, where every test's repo lives.
TEMP_ROOTS = {"ITACHI_AGENT_ROOTS": tempfile.gettempdir()}


def fake_engine_env(log: Path) -> dict[str, str]:
    env = {f"ITACHI_ENGINE_{name.upper()}_COMMAND": f"{sys.executable} {FAKE_ENGINE} --as {name}"
           for name in ("claude", "codex", "gemini")}
    env["ITACHI_FAKE_ENGINE_LOG"] = str(log)
    return env


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes.
    with suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


@dataclass
class AgentHarness:
    root: Path
    api_url: str
    api_key: str
    client: ApiClient
    dispatcher: SqsDispatcher
    engine_log: Path
    agents: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start_agent(self, machine_id: str = "m1", *, where: str = "--local",
                    **env: str) -> subprocess.Popen[bytes]:
        home = self.root / f"home-{machine_id}"
        home.mkdir(exist_ok=True)
        full = {**os.environ, **TEMP_ROOTS, **fake_engine_env(self.engine_log), "ITACHI_HOME": str(home),
                "ITACHI_API_URL": self.api_url, "ITACHI_API_KEY": self.api_key,
                "ITACHI_MACHINE_ID": machine_id,
                "ITACHI_AGENT_POLL_S": "1", "ITACHI_AGENT_HEARTBEAT_S": "1", **env}
        log = open(home / "agent.log", "ab")  # noqa: SIM115 (owned by the child)
        proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "agent", where], env=full,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.agents.append(proc)
        wait_for(lambda: any(m["id"] == machine_id and m["status"] == "online"
                             for m in self.client.get("/api/machines")["machines"]),
                 what=f"agent {machine_id} online", timeout_s=30)
        return proc

    def engine_events(self) -> list[dict[str, Any]]:
        if not self.engine_log.exists():
            return []
        return [json.loads(line) for line in self.engine_log.read_text().splitlines() if line.strip()]

    def engine_starts(self, task_id: str) -> list[dict[str, Any]]:
        return [e for e in self.engine_events() if e["event"] == "start" and e["task"] == task_id]

    def wait_status(self, task_id: str, statuses: set[str] = TERMINAL,
                    timeout_s: float = 60) -> dict[str, Any]:
        try:
            return wait_for(lambda: (t := self.client.get(f"/api/tasks/{task_id}"))["status"] in statuses
                            and t, timeout_s=timeout_s, what=f"task {task_id[:8]} in {sorted(statuses)}")
        except AssertionError as exc:
            task = self.client.get(f"/api/tasks/{task_id}")
            events = [(e["kind"], e["text"]) for e in self.events(task_id)]
            raise AssertionError(f"{exc}\ntask: {task}\nevents: {events}") from None

    def events(self, task_id: str) -> list[dict[str, Any]]:
        return self.client.get(f"/api/tasks/{task_id}/events", limit=1000)["events"]  # type: ignore[no-any-return]

    def close(self) -> None:
        for proc in self.agents:
            if proc.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(5)
        self.dispatcher.stop()


def harness(root: Path, api_url: str, api_key: str, client: ApiClient, queues: Any) -> Iterator[AgentHarness]:
    dispatcher = SqsDispatcher(queues, [DISPATCH_SPEC])
    dispatcher.start()
    h = AgentHarness(root, api_url, api_key, client, dispatcher, root / "engine.log")
    try:
        yield h
    finally:
        h.close()
