"""`itachi brain ...` against the API served over HTTP (no LLM key, no bot: the heuristic ranks)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import RunningApi
from tests.integration.brain.conftest import fail_three_times


def itachi(home: Path, api: RunningApi, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ITACHI_", "TELEGRAM_"))}
    env.update(ITACHI_HOME=str(home), ITACHI_API_URL=api.url, ITACHI_API_KEY=api.key)
    return subprocess.run([sys.executable, "-m", "agent.cli", "brain", *args], capture_output=True, text=True,
                          timeout=60, env=env)


def test_the_cli_runs_a_cycle_lists_approves_and_switches_the_brain_off(tmp_path: Path,
                                                                        api: RunningApi) -> None:
    task = fail_three_times(api.container)

    cycle = itachi(tmp_path, api, "cycle")
    listed = itachi(tmp_path, api, "proposals", "--status", "pending")
    (proposal,) = api.container.brain_decisions.list()
    approved = itachi(tmp_path, api, "approve", proposal.id[:8])
    off = itachi(tmp_path, api, "off")
    status = itachi(tmp_path, api, "status")

    assert cycle.returncode == 0, cycle.stderr
    assert "1 proposal(s), ranking heuristic" in cycle.stdout
    assert proposal.id[:8] in listed.stdout and "pending" in listed.stdout
    assert "approved" in approved.stdout and "retry task" in approved.stdout
    copies = [t for t in api.container.tasks.list_tasks(project="web") if t.description == task.description]
    assert len(copies) == 2
    assert "brain: OFF" in off.stdout and "brain: OFF" in status.stdout
    assert "pending proposals: 0" in status.stdout


def test_the_cli_says_what_is_wrong_with_a_bad_setting(tmp_path: Path, api: RunningApi) -> None:
    done = itachi(tmp_path, api, "config", "interval", "5s")

    assert done.returncode == 1
    assert "interval must be between 60 and 86400" in done.stdout
