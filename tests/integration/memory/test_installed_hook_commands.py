"""The hook commands `install-hooks` writes, run through a shell as Claude Code runs them, against
the API on a real HTTP server over Postgres.

The command starts the interpreter without `site` (``-I -S .../hooks/launch.py <hook>``): the
prompt hook must still find the project's memories, and the insight worker SessionEnd starts
detached (the same lean start) must still deliver its request.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agent.installers.install_hooks import install_hooks
from tests.conftest import RunningApi

pytestmark = pytest.mark.integration

PROJECT = "github.com/acme/installed-hooks"
DECISION = "We decided the billing service stores every amount as integer cents, never as floats."
PROMPT = "How does the billing service store money amounts in its database?"
SHARED = Path(__file__).resolve().parents[3] / ".." / "shared"
TRANSCRIPT = SHARED / "claude-code" / "samples" / "transcript.jsonl"


class Installed:
    """A git repository with the hooks installed at project scope, and a private ITACHI_HOME."""

    def __init__(self, api: RunningApi, root: Path) -> None:
        self.repo = root / "repo"
        self.repo.mkdir()
        subprocess.run(["git", "init", "-q", str(self.repo)], check=True)
        settings = json.loads(install_hooks("project", "claude", self.repo, sys.executable).read_text())
        self.commands = {event: groups[0]["hooks"][0]["command"]
                         for event, groups in settings["hooks"].items()}
        self.home = root / "home"
        self.env = {"PATH": "/usr/bin:/bin", "HOME": str(root), "ITACHI_HOME": str(self.home),
                    "CLAUDE_CONFIG_DIR": str(root / "claude"), "ITACHI_API_URL": api.url,
                    "ITACHI_API_KEY": api.key, "ITACHI_PROJECT": PROJECT}

    def run(self, event: str, **payload: Any) -> subprocess.CompletedProcess[bytes]:
        body = {"session_id": "installed-1", "cwd": str(self.repo), "hook_event_name": event, **payload}
        done = subprocess.run(self.commands[event], shell=True, input=json.dumps(body).encode(),
                              cwd=self.repo, env=self.env, capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done

    def log_lines(self) -> list[str]:
        path = self.home / "logs" / "hooks.log"
        return path.read_text().splitlines() if path.exists() else []


@pytest.fixture
def installed(api: RunningApi, tmp_path: Path) -> Installed:
    api.container.warm_up()
    api.call("POST", "/api/memory", {"project": PROJECT, "category": "decision", "content": DECISION,
                                     "source": "user"})
    return Installed(api, tmp_path)


def test_the_installed_prompt_hook_starts_without_site_and_injects_the_projects_memory(
        installed: Installed) -> None:
    command = installed.commands["UserPromptSubmit"]
    assert " -I -S " in command and command.endswith("launch.py user_prompt_submit --itachi-client claude")
    contexts = []
    for _ in range(5):  # a busy box can miss the hook's 0.5 s deadline: that run injects nothing
        done = installed.run("UserPromptSubmit", prompt=PROMPT)
        if done.stdout:
            contexts.append(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])
            break
    assert contexts and f"- [decision] {DECISION} (today)" in contexts[0].splitlines()
    assert installed.log_lines()[-1].split()[2:4] == ["user_prompt_submit", "ok"]


def test_the_installed_session_end_hooks_detached_worker_delivers_the_extraction(
        installed: Installed) -> None:
    installed.run("SessionEnd", reason="other", transcript_path=str(TRANSCRIPT.resolve()))
    deadline = time.monotonic() + 60
    def worker_lines() -> list[str]:
        return [line for line in installed.log_lines() if " extract_worker " in line]

    while time.monotonic() < deadline and not worker_lines():
        time.sleep(0.1)
    (worker,) = worker_lines()
    assert " extract_worker ok " in worker and "extract=ok" in worker, worker
    # The hook's own /api/session/complete may be spooled on a busy box (its deadline is 0.3 s):
    # that is the hook failing open; the extraction it handed to the worker must not be left.
    outbox = installed.home / "outbox"
    left = [json.loads(path.read_text()) for path in outbox.glob("*.json*")] if outbox.exists() else []
    assert [entry["path"] for entry in left if entry["path"] != "/api/session/complete"] == [], left
