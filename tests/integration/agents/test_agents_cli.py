"""`itachi agents` as a user runs it: a real CLI process against the real API."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import RunningApi
from tests.support.orchestration import client_for, offline_machine


def itachi(api: RunningApi, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ITACHI_API_URL": api.url, "ITACHI_API_KEY": api.key, "ITACHI_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "agent.cli", "agents", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_profiles_runs_messages_and_cron_from_the_command_line(api: RunningApi, tmp_path: Path) -> None:
    added = itachi(
        api,
        tmp_path,
        "profile",
        "add",
        "doc-writer",
        "--prompt",
        "You write docs.",
        "--tools",
        "Read,Write",
        "--permission-mode",
        "acceptEdits",
        "--budget",
        "300",
    )
    listed = itachi(api, tmp_path, "profile", "list")
    shown = itachi(api, tmp_path, "profile", "show", "doc-writer")
    offline_machine(client_for(api.url, api.key), "nowhere")
    spawned = itachi(api, tmp_path, "spawn", "doc-writer", "Document the cron API", "--machine", "nowhere")
    run_id = spawned.stdout.split()[2]
    active = itachi(api, tmp_path, "list")
    sent = itachi(api, tmp_path, "message", run_id, "Mention the until field")
    messages = itachi(api, tmp_path, "messages", run_id)
    cron = itachi(api, tmp_path, "cron", "add", "doc-writer", "0 8 * * 1-5", "Check the docs build")
    jobs = itachi(api, tmp_path, "cron", "list", "--profile", "doc-writer")
    removed = itachi(api, tmp_path, "cron", "rm", jobs.stdout.split()[0] if jobs.stdout else "x")
    refused = itachi(api, tmp_path, "profile", "rm", "code-reviewer")

    assert added.stdout.strip() == "saved profile doc-writer", added.stderr
    assert "code-reviewer    built-in" in listed.stdout and "doc-writer       user" in listed.stdout
    assert "allowed_tools: ['Read', 'Write']" in shown.stdout and "time_budget_s: 300" in shown.stdout
    assert spawned.stdout.startswith("doc-writer run ") and run_id in active.stdout
    assert f"message 1 to run {run_id}: waiting" in sent.stdout
    assert messages.stdout.strip() == "1. [pending] user: Mention the until field"
    assert cron.stdout.startswith("cron job ") and "Check the docs build" in jobs.stdout
    assert removed.returncode == 0 and "removed" in removed.stdout, (jobs.stdout, removed.stderr)
    assert refused.returncode == 1 and "built-in profile" in refused.stderr
