"""When tool approvals are asked for: work from Telegram, the local switch, the permission mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agent.engines.approval_env import approval_env
from hooks.pre_tool_use import asks, summary_of, timeout_s
from tests.conftest import REPO_ROOT


def test_a_session_or_task_from_a_telegram_topic_runs_its_engine_with_approvals_to_that_topic() -> None:
    expected = {"ITACHI_APPROVALS": "1", "ITACHI_TELEGRAM_TOPIC": "42"}
    assert approval_env({"telegram_topic_id": 42}, {}) == expected
    assert approval_env({"telegram_topic_id": None}, {}) == {}
    assert approval_env({"telegram_topic_id": 42}, {"ITACHI_APPROVALS": "0"}) == {}


def test_only_calls_the_permission_mode_would_ask_about_are_sent_for_approval() -> None:
    assert asks("Bash", "default") and asks("Write", "default") and asks("WebFetch", "acceptEdits")
    assert asks("Bash", "acceptEdits") and not asks("Edit", "acceptEdits")
    assert not asks("Bash", "bypassPermissions") and not asks("Read", "default")
    assert not asks("Write", "plan") and asks("Bash", "plan")  # plan mode refuses edits by itself
    assert summary_of("Bash", {"command": "rm -rf  build\n"}) == "rm -rf build"
    assert timeout_s({"ITACHI_APPROVAL_TIMEOUT_S": "9999"}) == 600
    assert timeout_s({"ITACHI_APPROVAL_TIMEOUT_S": "soon"}) == 120


def test_itachi_approvals_on_and_off_keep_the_rest_of_the_client_config(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"api_url": "http://127.0.0.1:1", "api_key": "k"}))
    env = {**os.environ, "ITACHI_HOME": str(tmp_path), "PYTHONPATH": str(REPO_ROOT)}

    def itachi(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "agent.cli", "approvals", *args], env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "local sessions: on" in itachi("on")
    assert json.loads((tmp_path / "config.json").read_text()) == {
        "api_url": "http://127.0.0.1:1", "api_key": "k", "approvals": True}
    assert "local sessions: off" in itachi("off")
    assert "local sessions: off" in itachi("status")


def test_a_plan_is_approved_or_revised_and_a_tool_call_has_no_revise() -> None:
    from datetime import UTC, datetime

    from chalicelib.approvals.domain.approvals import Approval, allowed_choice, buttons, parse_callback

    now = datetime.now(UTC)
    ident = "0" * 8 + "-0000-0000-0000-" + "0" * 12
    plan = Approval(ident, "s1", "app", "ExitPlanMode", "1. edit", "pending", False, None, None, now, now)
    call = Approval(plan.id, "s1", "app", "Bash", "ls", "pending", False, None, None, now, now)
    assert [label for label, _ in buttons(plan)] == ["✅ Approve plan", "✏️ Revise"]
    assert parse_callback(f"tap:{'0' * 32}:r") == (plan.id, "revise")
    assert allowed_choice(plan, "revise") and allowed_choice(plan, "allow")
    assert not allowed_choice(plan, "always")
    assert not allowed_choice(call, "revise") and allowed_choice(call, "always")
