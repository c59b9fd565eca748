"""A task on an SSH target: the agent makes the worktree on the remote host and runs the engine there.

The "remote host" is this machine reached through a real sshd, so the test can look at the
remote repository directly afterwards.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.bootstrap import Container
from tests.conftest import RunningApi
from tests.support.agent_harness import AgentHarness, harness, make_repo
from tests.support.orchestration import client_for, new_task
from tests.support.sshd import Sshd


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def h(api: RunningApi, container: Container, tmp_path: Path) -> Iterator[AgentHarness]:
    yield from harness(tmp_path, api.url, api.key, client_for(api.url, api.key), container.queues)


@pytest.fixture
def remote_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "remote" / "webapp")


def add_target(h: AgentHarness, sshd: Sshd, remote_root: Path) -> None:
    home = h.root / "home-m1"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ITACHI_")}
    env.update(ITACHI_HOME=str(home), ITACHI_API_URL=h.api_url, ITACHI_API_KEY=h.api_key,
               ITACHI_MACHINE_ID="m1")
    done = subprocess.run([sys.executable, "-m", "agent.cli", "ssh", "add", "buildbox", "--host", "127.0.0.1",
                           "--port", str(sshd.port), "--user", sshd.user, "--key", str(sshd.client_key),
                           "--trust", "--remote-root", str(remote_root)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_task_runs_in_a_worktree_on_the_ssh_target(h: AgentHarness, sshd: Sshd, remote_repo: Path,
                                                     tmp_path: Path) -> None:
    add_target(h, sshd, tmp_path / "remote-itachi")
    h.start_agent("m1", ITACHI_AGENT_REPOS=f"webapp=@buildbox:{remote_repo}")

    task = new_task(h.client, "add notes [fake:write=notes/out.txt]", project="webapp")
    done = h.wait_status(task["id"])

    assert done["status"] == "completed", done
    short = task["id"].replace("-", "")[:8]
    worktree = tmp_path / "remote-itachi" / "worktrees" / "webapp" / f"task-{short}"
    assert done["worktree"] == f"@buildbox:{worktree}"
    assert done["branch"] == f"itachi/task-{short}" and done["files_changed"] == ["notes/out.txt"]
    assert done["result_summary"] == "Done by the fake claude."
    assert git(remote_repo, "show", f"{done['branch']}:notes/out.txt") == "written by the fake claude\n"
    assert not (remote_repo / "notes").exists()  # the checkout on the host is untouched
    assert not list((tmp_path / "remote-itachi" / "prompts").glob("*")), "the uploaded prompt is removed"
    events = h.events(task["id"])
    assert any(e["kind"] == "engine_started" and e["data"].get("target") == "buildbox" for e in events)
    assert any(e["kind"] == "text" for e in events), "the engine's output streams back as progress"


def test_a_changed_host_key_fails_the_task_naming_both_fingerprints(
        h: AgentHarness, sshd: Sshd, remote_repo: Path, tmp_path: Path) -> None:
    add_target(h, sshd, tmp_path / "remote-itachi")
    pinned = sshd.host_fingerprint
    sshd.rotate_host_key()
    h.start_agent("m1")

    task = new_task(h.client, "never runs [fake:write=x.txt]", project="webapp",
                    repo=f"@buildbox:{remote_repo}", max_attempts=1)
    done = h.wait_status(task["id"])

    assert done["status"] == "failed"
    assert f"pinned {pinned}, presented {sshd.host_fingerprint}" in done["error"]
    assert git(remote_repo, "branch", "--list", "itachi/*") == ""
