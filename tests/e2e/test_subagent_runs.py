"""Subagent runs through the real task path: a real agent process runs the pinned Claude Code
CLI against FakeAnthropic, with the profile's system prompt, permission mode and budget."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from chalicelib.agents.domain.builtin_profiles import BUILTIN_PROFILES
from chalicelib.agents.services.runs import SpawnRequest
from chalicelib.bootstrap import Container
from chalicelib.tasks.services.task_policy import TaskPolicy
from tests.conftest import RunningApi
from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.agent_harness import AgentHarness, harness, make_repo
from tests.support.claude_cli import claude_env, ensure_claude_cli
from tests.support.orchestration import client_for, offline_machine, wait_for

pytestmark = pytest.mark.e2e
SLEEP = "python3 -c 'import time; time.sleep({})'"
OUTSIDE = "python3 -c 'open(\"outside-the-list.txt\", \"w\").write(\"x\")'"


@pytest.fixture
def h(api: RunningApi, container: Container, tmp_path: Path) -> Iterator[AgentHarness]:
    container.task_policy = TaskPolicy(lease_s=4.0)
    yield from harness(tmp_path, api.url, api.key, client_for(api.url, api.key), container.queues)


def add_operator(h: AgentHarness) -> None:
    """A user profile whose allowed tools let its Bash commands run unprompted (acceptEdits alone
    asks for approval of most commands, which print mode refuses)."""
    h.client.post("/api/agents/profiles", {"name": "operator", "system_prompt": "You operate builds.",
                                           "allowed_tools": ["Bash", "Read"], "time_budget_s": 120})


def start_claude_agent(h: AgentHarness, fake: FakeAnthropic, tmp_path: Path) -> None:
    config = tmp_path / "claude-config"
    config.mkdir(exist_ok=True)
    env = claude_env(fake.base_url, config)
    h.start_agent(
        "m1",
        ITACHI_ENGINE_CLAUDE_COMMAND=str(ensure_claude_cli()),
        **{k: v for k, v in env.items() if k not in ("PATH", "HOME")},
    )


def finished_run(h: AgentHarness, run_id: str, timeout_s: float = 90) -> dict[str, Any]:
    try:
        return wait_for(
            lambda: (r := h.client.get(f"/api/agents/runs/{run_id}"))["status"] != "active" and r,
            timeout_s=timeout_s,
            what=f"run {run_id[:8]} to finish",
        )
    except AssertionError:
        run = h.client.get(f"/api/agents/runs/{run_id}")
        log = (h.root / "home-m1" / "agent.log").read_text()[-3000:]
        raise AssertionError(
            f"run: {run}\nevents: {h.events(run['task_id']) if run['task_id'] else []}\nagent log: {log}"
        ) from None


def test_a_code_reviewer_run_gets_its_system_prompt_and_plan_mode_and_its_next_run_its_lessons(
    h: AgentHarness, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    script = [
        Reply.tool_use("Write", {"file_path": str(repo / "review.md"), "content": "edited\n"}),
        Reply.text("Review: charge() retries without an idempotency key (payments.py:12)."),
    ]
    with FakeAnthropic(script) as fake:
        start_claude_agent(h, fake, tmp_path)
        run = h.client.post(
            "/api/agents/runs",
            {
                "profile": "code-reviewer",
                "project": "payments",
                "prompt": "Review the payment PR",
                "repo": str(repo),
            },
        )
        done = finished_run(h, run["id"])
        first = fake.conversation_requests()
        task = h.client.get(f"/api/tasks/{done['task_id']}")
        lessons = h.client.get("/api/agents/profiles/code-reviewer")["lessons"]
        again = h.client.post(
            "/api/agents/runs",
            {
                "profile": "code-reviewer",
                "project": "payments",
                "prompt": "Review the refund PR",
                "repo": str(repo),
            },
        )
        finished_run(h, again["id"])
        second = fake.conversation_requests()[len(first) :]
        later = h.client.get("/api/agents/profiles/code-reviewer")["lessons"]
        after = {lesson["id"]: lesson for lesson in later}

    reviewer = BUILTIN_PROFILES["code-reviewer"]
    assert done["status"] == "completed", done
    assert done["result_summary"] == "Review: charge() retries without an idempotency key (payments.py:12)."
    assert task["engine_options"]["permission_mode"] == "plan" and task["current_engine"] == "claude"
    assert all(reviewer.system_prompt in json.dumps(r.body["system"]) for r in first)
    denied = json.dumps(first[1].body["messages"][-1])
    assert "while in plan mode" in denied and '"is_error": true' in denied
    assert not (Path(task["worktree"]) / "review.md").exists()
    assert task["files_changed"] == []
    assert [lesson["kind"] for lesson in lessons] == ["outcome"]
    assert "Review the payment PR" in lessons[0]["content"] and lessons[0]["confidence"] == pytest.approx(0.7)
    carried = json.dumps(second[0].body["messages"])
    assert "Lessons from earlier code-reviewer runs" in carried and "idempotency key" in carried
    assert after[lessons[0]["id"]]["confidence"] == pytest.approx(0.8)  # the run it helped succeeded


def test_a_message_to_a_running_subagent_reaches_the_engine_at_its_next_turn(
    h: AgentHarness, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    script = [
        Reply.tool_use("Bash", {"command": SLEEP.format(6), "description": "wait for the build"}),
        Reply.text("The build is green."),
        Reply.text("Checked the staging logs too: clean."),
    ]
    with FakeAnthropic(script) as fake:
        start_claude_agent(h, fake, tmp_path)
        add_operator(h)
        run = h.client.post(
            "/api/agents/runs", {"profile": "operator", "prompt": "Watch the build", "repo": str(repo)}
        )
        wait_for(
            lambda: (
                (r := h.client.get(f"/api/agents/runs/{run['id']}"))["task_id"]
                and any(e["kind"] == "tool_use" for e in h.events(r["task_id"]))
            ),
            timeout_s=60,
            what="the engine's first turn",
        )
        sent = h.client.post(
            f"/api/agents/runs/{run['id']}/messages",
            {"body": "Also check the staging logs", "sender": "researcher"},
        )
        done = finished_run(h, run["id"])
        requests = fake.conversation_requests()
        messages = h.client.get(f"/api/agents/runs/{run['id']}/messages")["messages"]

    assert sent["delivery"] == "relayed"
    assert done["status"] == "completed", done
    assert done["result_summary"] == "Checked the staging logs too: clean."
    turn_two = [r for r in requests if "Also check the staging logs" in json.dumps(r.body["messages"])]
    assert len(requests) == 3 and turn_two == requests[2:]
    # The profile's allowed tools let the command run (the message arrived while it did).
    assert '"is_error": false' in json.dumps(requests[1].body["messages"][-1])
    assert [(m["seq"], m["sender"], m["status"]) for m in messages] == [(1, "researcher", "delivered")]
    inputs = [e for e in h.events(done["task_id"]) if e["kind"] == "input"]
    assert [e["data"]["message_seq"] for e in inputs] == [1]


def test_a_run_past_its_time_budget_is_stopped_and_reported_to_the_run_that_spawned_it(
    h: AgentHarness, tmp_path: Path, container: Container
) -> None:
    repo = make_repo(tmp_path / "repo")
    hang = Reply.tool_use("Bash", {"command": SLEEP.format(30), "description": "hang"})
    with FakeAnthropic([hang]) as fake:
        start_claude_agent(h, fake, tmp_path)
        add_operator(h)
        # The parent is active but waits for a machine that never comes back.
        offline_machine(h.client, "nowhere")
        parent = container.agent_runs.spawn(SpawnRequest("researcher", "Plan the rollout", machine="nowhere"))
        child = h.client.post(
            "/api/agents/runs",
            {
                "profile": "operator",
                "prompt": "Run the migration",
                "repo": str(repo),
                "time_budget_s": 3,
                "parent_run_id": parent.id,
            },
        )
        done = finished_run(h, child["id"], timeout_s=60)
        # The report follows the run's status change: wait for it rather than race it.
        inbox = wait_for(
            lambda: h.client.get(f"/api/agents/runs/{parent.id}/messages")["messages"],
            timeout_s=30,
            what="the report in the parent's inbox",
        )

    assert done["status"] == "timed_out", done
    assert done["stop_reason"] == "time budget of 3s spent"
    events = h.events(done["task_id"])
    assert any(e["kind"] == "notice" and "time budget of 3s exhausted" in e["text"] for e in events)
    assert [m["sender"] for m in inbox] == [f"run:{child['id'][:8]}"]
    assert "operator run" in inbox[0]["body"] and "timed_out (time budget of 3s spent)" in inbox[0]["body"]
    lessons = h.client.get("/api/agents/profiles/operator")["lessons"]
    assert any(
        "Run the migration" in lesson["content"] and "timed_out" in lesson["content"] for lesson in lessons
    )


def test_a_turn_that_overspends_the_cost_budget_is_stopped_in_the_middle_and_keeps_what_it_said(
    h: AgentHarness, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    said = "Starting the migration: step one of three."
    # Two million input tokens: more than $1 at any Claude model's list price; the tool would
    # then keep the turn going for 90 s, so only a stop in the middle of the turn ends it sooner.
    migrate = {"command": SLEEP.format(90), "description": "migrate"}
    costly = replace(Reply.tool_use("Bash", migrate, text=said), input_tokens=2_000_000)
    with FakeAnthropic([costly, Reply.text("Migration done.")]) as fake:
        start_claude_agent(h, fake, tmp_path)
        add_operator(h)
        run = h.client.post("/api/agents/runs", {"profile": "operator", "prompt": "Run the migration",
                                                 "repo": str(repo), "cost_budget_usd": 1.0})
        done = finished_run(h, run["id"], timeout_s=60)
        requests = fake.conversation_requests()

    assert done["status"] == "timed_out", done
    assert "over budget $1" in (done["stop_reason"] or ""), done
    assert done["result_summary"] == said  # the partial result is kept
    assert done["cost_usd"] > 1.0
    assert len(requests) == 1  # the tool's result never went back to the model
    events = h.events(done["task_id"])
    notices = [e for e in events if e["kind"] == "notice" and "cost budget of $1 spent" in e["text"]]
    assert len(notices) == 1 and notices[0]["data"]["budget"] == "cost"
    task = h.client.get(f"/api/tasks/{done['task_id']}")
    assert task["status"] == "timed_out" and task["cost_usd"] > 1.0


def test_the_devops_profile_runs_its_allowed_commands_in_accept_edits_mode_and_is_refused_the_rest(
    h: AgentHarness, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    script = [
        Reply.tool_use("Bash", {"command": "git tag release-candidate", "description": "tag"}),
        Reply.tool_use("Bash", {"command": OUTSIDE, "description": "write a file with python"}),
        Reply.tool_use("Write", {"file_path": "deploy/notes.md", "content": "rolled out\n"}),
        Reply.text("Tagged the release candidate and wrote the deploy notes."),
    ]
    with FakeAnthropic(script) as fake:
        start_claude_agent(h, fake, tmp_path)
        run = h.client.post("/api/agents/runs", {"profile": "devops", "prompt": "Tag the release candidate",
                                                 "repo": str(repo)})
        done = finished_run(h, run["id"])
        requests = fake.conversation_requests()
    task = h.client.get(f"/api/tasks/{done['task_id']}")
    devops = BUILTIN_PROFILES["devops"]

    assert done["status"] == "completed", done
    assert task["engine_options"]["permission_mode"] == "acceptEdits"
    assert task["engine_options"]["allowed_tools"] == list(devops.allowed_tools)
    assert all(devops.system_prompt in json.dumps(r.body["system"]) for r in requests)
    tool_results = [json.dumps(r.body["messages"][-1]) for r in requests[1:4]]
    assert '"is_error": false' in tool_results[0]  # Bash(git:*) is on the list
    assert '"is_error": true' in tool_results[1]  # python is not: print mode cannot ask for it
    assert '"is_error": false' in tool_results[2] or '"is_error"' not in tool_results[2]  # acceptEdits
    tags = subprocess.run(["git", "-C", str(repo), "tag"], capture_output=True, text=True, check=True)
    assert "release-candidate" in tags.stdout.split()
    assert not (Path(task["worktree"]) / "outside-the-list.txt").exists()
    assert "deploy/notes.md" in task["files_changed"]
