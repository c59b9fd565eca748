"""A subagent's hooks read only its profile's memory scope: the real hook scripts as processes
(with ITACHI_AGENT_RUN_ID in their environment, as the agent starts a subagent's engine) against
the real API over Postgres. The scope is the server's: the hooks only name their run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT, RunningApi
from tests.support.orchestration import client_for, offline_machine, wait_for

pytestmark = pytest.mark.integration

SCOPED = "github.com/acme/ledger"  # the profile's project
OWN = "github.com/acme/payments"  # the run's own project (its worktree), outside the scope
PROMPT = "How do we reconcile the quarterly billing ledger totals with the bank export?"
MEMORIES = [
    (SCOPED, "fact", "Ledger fact: the quarterly billing ledger totals are reconciled with the bank export."),
    (SCOPED, "project_rule", "Ledger rule: never edit a closed billing ledger quarter; post a correction."),
    (SCOPED, "decision", "Ledger decision: the billing ledger totals moved to integer cents in 2025."),
    (OWN, "fact", "Payments fact: the quarterly billing ledger totals feed the bank export job."),
    ("_global", "fact", "Global fact: billing ledger totals are always reconciled with the bank export."),
]


@pytest.fixture
def world(api: RunningApi, tmp_path: Path) -> dict[str, Any]:
    """Memories in three projects, a profile scoped to one project and two categories, its run."""
    api.container.warm_up()
    api.call("POST", "/api/memory/batch", {"memories": [
        {"project": p, "category": c, "content": text, "source": "user"} for p, c, text in MEMORIES]})
    api.call("POST", "/api/agents/profiles", {
        "name": "ledger-analyst", "system_prompt": "You analyse ledgers.",
        "memory_projects": [SCOPED], "memory_categories": ["fact", "project_rule"]})
    offline_machine(client_for(api.url, api.key), "nowhere")
    run = api.call("POST", "/api/agents/runs", {"profile": "ledger-analyst", "project": OWN,
                                                  "prompt": "Reconcile Q3", "machine": "nowhere"})
    repo = tmp_path / "payments"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", f"https://{OWN}.git"], check=True,
                   timeout=30)
    return {"run": run, "repo": repo, "home": tmp_path / "itachi-home"}


def hook(api: RunningApi, world: dict[str, Any], name: str, payload: dict[str, Any],
         run_id: str | None) -> str:
    """Run hooks.<name> as Claude Code does; the additionalContext it printed ('' if none)."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(world["home"]), "ITACHI_HOME": str(world["home"]),
           "ITACHI_API_URL": api.url, "ITACHI_API_KEY": api.key, "PYTHONPATH": str(REPO_ROOT),
           "CLAUDE_CONFIG_DIR": str(world["home"] / "claude")}
    if run_id:
        env["ITACHI_AGENT_RUN_ID"] = run_id
    body = {"session_id": "s-scope", "cwd": str(world["repo"]), "hook_event_name": payload["event"],
            **payload}
    done = subprocess.run([sys.executable, "-m", f"hooks.{name}"], input=json.dumps(body).encode(),
                          cwd=world["repo"], env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    if not done.stdout.strip():
        return ""
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


def prompt_context(api: RunningApi, world: dict[str, Any], run_id: str | None) -> str:
    """The prompt hook's context; retried while the hook's 0.5 s deadline lets nothing through."""
    payload = {"event": "UserPromptSubmit", "prompt": PROMPT}
    return wait_for(lambda: hook(api, world, "user_prompt_submit", payload, run_id), timeout_s=90,
                    what="the prompt hook's memory context")


def test_a_subagents_prompt_hook_reads_only_its_profiles_projects_and_categories(
    api: RunningApi, world: dict[str, Any]
) -> None:
    run_id = world["run"]["id"]
    everyone = prompt_context(api, world, None)
    scoped = prompt_context(api, world, run_id)

    assert "Payments fact" in everyone and "Global fact" in everyone  # what a plain session reads
    assert "Ledger fact" in scoped and "Ledger rule" in scoped
    assert "Ledger decision" not in scoped  # a category outside the scope
    assert "Payments fact" not in scoped  # the run's own project is outside the scope
    assert "Global fact" not in scoped  # _global is not among its projects


def test_a_subagents_session_start_hook_reads_only_its_scope(api: RunningApi, world: dict[str, Any]) -> None:
    api.call("POST", "/api/project/rules", {"project": OWN, "rule": "Payments rule: retry exports twice."})
    run_id = world["run"]["id"]
    start = {"event": "SessionStart", "source": "startup"}
    everyone = wait_for(lambda: "Payments fact" in (t := hook(api, world, "session_start", start, None))
                        and t, timeout_s=90, what="a plain session's briefing")
    scoped = wait_for(lambda: "Ledger" in (t := hook(api, world, "session_start", start, run_id)) and t,
                      timeout_s=90, what="the subagent's briefing")

    assert "Payments rule" in everyone
    assert "Payments fact" not in scoped and "Payments rule" not in scoped
    assert "Ledger decision" not in scoped and "Global fact" not in scoped


def test_the_run_id_narrows_what_a_request_asks_for_and_never_widens_it(
    api: RunningApi, world: dict[str, Any]
) -> None:
    header = {"X-Itachi-Agent-Run": world["run"]["id"]}
    asked_decisions = api.call("GET", "/api/memory/search", headers=header, query="billing ledger totals",
                           project=SCOPED, category="decision", limit=10)
    asked_elsewhere = api.call("GET", "/api/memory/recent", headers=header, project=OWN, limit=20)
    rules = api.call("GET", "/api/project/learnings", headers=header, project=OWN)
    recall = api.call("GET", "/api/memory/recall", headers=header, project=SCOPED,
                  error="Traceback (most recent call last):\nValueError: billing ledger totals differ")

    assert asked_decisions["results"] == []
    assert {m["project"] for m in asked_elsewhere["results"]} == {SCOPED}
    assert {m["category"] for m in asked_elsewhere["results"]} <= {"fact", "project_rule"}
    assert rules["rules"] == []
    assert all(h["category"] in ("fact", "project_rule") for h in recall["results"])
    with pytest.raises(urllib.error.HTTPError) as unknown:
        api.call("GET", "/api/memory/search", headers={"X-Itachi-Agent-Run": str(uuid.uuid4())},
             query="billing ledger", project=SCOPED)
    assert unknown.value.code == 400 and "no agent run" in unknown.value.read().decode()
    with pytest.raises(urllib.error.HTTPError) as explained:
        api.call("GET", "/api/memory/search", headers=header, query="billing ledger", project=SCOPED,
             explain="true")
    assert explained.value.code == 400


def test_the_pre_compact_hook_of_a_subagent_keeps_its_working_notes_as_a_lesson_of_its_profile(
    api: RunningApi, world: dict[str, Any]
) -> None:
    transcript = (REPO_ROOT / ".." / "shared" / "claude-code" / "samples" / "transcript.jsonl").resolve()
    payload = {"event": "PreCompact", "trigger": "auto", "transcript_path": str(transcript)}
    hook(api, world, "pre_compact", payload, world["run"]["id"])
    profile = "/api/agents/profiles/ledger-analyst"
    lessons = wait_for(lambda: [x for x in api.call("GET", profile)["lessons"] if x["kind"] == "notes"],
                       timeout_s=30, what="the notes lesson")
    assert "notes.md written and edited." in lessons[0]["content"]
    assert lessons[0]["source_run"] == world["run"]["id"]
