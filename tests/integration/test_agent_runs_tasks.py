"""Real agent processes run tasks with a fake engine: worktrees, results, switches, sessions."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.bootstrap import Container
from chalicelib.tasks.services.task_policy import TaskPolicy
from tests.conftest import RunningApi
from tests.support.agent_harness import AgentHarness, harness, make_repo
from tests.support.orchestration import client_for, new_task, wait_for


@pytest.fixture
def h(api: RunningApi, container: Container, tmp_path: Path) -> Iterator[AgentHarness]:
    container.task_policy = TaskPolicy(lease_s=2.0)
    yield from harness(tmp_path, api.url, api.key, client_for(api.url, api.key), container.queues)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def test_a_task_runs_in_its_own_worktree_and_branch_and_reports_its_result(
        h: AgentHarness, repo: Path, container: Container) -> None:
    h.start_agent("m1")
    task = new_task(h.client, "add notes [fake:write=notes/out.txt]", repo=str(repo))

    done = h.wait_status(task["id"])

    assert done["status"] == "completed", done
    assert done["branch"] == f"itachi/task-{task['id'].replace('-', '')[:8]}"
    assert done["files_changed"] == ["notes/out.txt"]
    assert done["cost_usd"] == pytest.approx(0.001)
    assert done["result_summary"] == "Done by the fake claude."
    assert (Path(done["worktree"]) / "notes" / "out.txt").read_text() == "written by the fake claude\n"
    assert git(repo, "show", f"{done['branch']}:notes/out.txt") == "written by the fake claude\n"
    assert not (repo / "notes").exists()  # the user's checkout is untouched
    kinds = [e["kind"] for e in h.events(task["id"])]
    assert kinds[:3] == ["created", "dispatched", "started"]
    assert {"workspace", "engine_started", "text", "tool_use", "engine_exited"} <= set(kinds)
    assert kinds[-1] == "completed"

    def recorded_outcome() -> object:  # the agent posts it after the result, so it may lag
        with container.db.connection() as conn:
            return conn.execute("SELECT outcome, engine FROM task_outcomes WHERE task_id = %s",
                                (task["id"],)).fetchone()

    outcome = wait_for(recorded_outcome, what="the task's outcome")
    assert outcome == {"outcome": "success", "engine": "claude"}


def test_a_failing_engine_fails_the_task_with_its_error(h: AgentHarness, repo: Path) -> None:
    h.start_agent("m1")
    task = new_task(h.client, "[fake:fail]", repo=str(repo))

    done = h.wait_status(task["id"])

    assert (done["status"], done["exit_code"], done["error"]) == ("failed", 1, "the fake engine failed")


def test_a_rate_limited_engine_hands_the_task_to_the_next_engine_with_a_handoff(
        h: AgentHarness, repo: Path) -> None:
    h.start_agent("m1")
    task = new_task(h.client, "[fake:rate_limit=claude] [fake:write=x.txt]", repo=str(repo))

    done = h.wait_status(task["id"])

    assert done["status"] == "completed", done
    assert (done["engine_switches"], done["current_engine"]) == (1, "codex")
    starts = h.engine_starts(task["id"])
    assert [(s["engine"], s["handoff"], s["fallback"]) for s in starts] == [
        ("claude", False, None), ("codex", True, "1")]
    assert any(e["kind"] == "engine_switch" for e in h.events(task["id"]))


def test_the_switch_guard_ends_a_chain_of_rate_limits(h: AgentHarness, repo: Path) -> None:
    h.start_agent("m1")
    task = new_task(h.client, "[fake:rate_limit=claude,codex,gemini]", repo=str(repo))

    done = h.wait_status(task["id"])

    assert (done["status"], done["engine_switches"]) == ("failed", 2)
    assert [s["engine"] for s in h.engine_starts(task["id"])] == ["claude", "codex", "gemini"]
    assert done["error"] == "RESOURCE_EXHAUSTED: quota exceeded"  # the last engine's own words


def test_a_task_over_its_time_budget_is_stopped_and_timed_out(h: AgentHarness, repo: Path) -> None:
    h.start_agent("m1")
    task = new_task(h.client, "[fake:sleep=60]", repo=str(repo), time_budget_s=2)

    done = h.wait_status(task["id"], timeout_s=30)

    assert done["status"] == "timed_out"


def test_tasks_queued_before_any_agent_run_once_it_comes_online(h: AgentHarness, repo: Path) -> None:
    tasks = [new_task(h.client, f"t{i} [fake:write=f{i}.txt]", repo=str(repo)) for i in range(3)]
    h.start_agent("m1", ITACHI_AGENT_MAX_CONCURRENT="2")

    finished = [h.wait_status(t["id"]) for t in tasks]

    assert [t["status"] for t in finished] == ["completed"] * 3


def test_an_interactive_session_answers_each_input_in_order_and_ends_on_close(h: AgentHarness) -> None:
    h.start_agent("m1")
    sid = h.client.post("/api/sessions", {"prompt": "first", "project": "p", "machine": "m1"})["id"]
    wait_for(lambda: h.client.get(f"/api/sessions/{sid}")["status"] == "active", what="session active")
    h.client.post(f"/api/sessions/{sid}/input", {"text": "second"})
    h.client.post(f"/api/sessions/{sid}/input", {"text": "third"})

    def texts() -> list[str]:
        events = h.client.get(f"/api/sessions/{sid}/events")["events"]
        return [e["text"] for e in events if e["kind"] == "text"]

    wait_for(lambda: len(texts()) == 3, what="three answers")
    h.client.post(f"/api/sessions/{sid}/close")
    ended = wait_for(lambda: (s := h.client.get(f"/api/sessions/{sid}"))["status"] in {"closed", "failed"}
                     and s, what="session closed")

    assert texts() == ["echo: first", "echo: second", "echo: third"]
    assert (ended["status"], ended["exit_code"]) == ("closed", 0)


def test_a_second_agent_for_the_same_machine_and_home_refuses_to_start(h: AgentHarness) -> None:
    first = h.start_agent("m1")
    second = subprocess.run([sys.executable, "-m", "agent.cli", "agent", "--local"], env={
        **os.environ, "ITACHI_HOME": str(h.root / "home-m1"), "ITACHI_MACHINE_ID": "m1",
        "ITACHI_API_URL": h.api_url, "ITACHI_API_KEY": h.api_key}, capture_output=True, text=True, timeout=30)

    assert second.returncode != 0
    assert "already runs" in second.stderr
    assert first.poll() is None
