"""Fault tests: a killed agent, duplicated messages, cancels during a run, poison messages."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.bootstrap import Container
from chalicelib.tasks.services.task_policy import TaskPolicy
from tests.conftest import RunningApi
from tests.support.agent_harness import AgentHarness, harness, make_repo, pid_alive
from tests.support.orchestration import client_for, new_task, wait_for


@pytest.fixture
def h(api: RunningApi, container: Container, tmp_path: Path) -> Iterator[AgentHarness]:
    container.task_policy = TaskPolicy(lease_s=2.0)
    yield from harness(tmp_path, api.url, api.key, client_for(api.url, api.key), container.queues)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _running_engine(h: AgentHarness, task_id: str, *, with_child: bool = False) -> tuple[int, int | None]:
    start = wait_for(lambda: h.engine_starts(task_id), what="engine start")[-1]
    child = None
    if with_child:
        child = wait_for(lambda: [e for e in h.engine_events() if e["event"] == "child"
                                  and e["task"] == task_id], what="engine child")[-1]["child_pid"]
    return start["pid"], child


def test_an_agent_killed_mid_task_leaves_no_engine_and_the_task_is_retried_once_it_restarts(
        h: AgentHarness, repo: Path) -> None:
    # A long poll the killed agent had open may still take the retry's message: it comes back
    # after the visibility timeout, short here.
    agent = h.start_agent("m1", ITACHI_AGENT_VISIBILITY_S="3")
    task = new_task(h.client, "[fake:child] [fake:sleep_once=120] [fake:write=done.txt]", repo=str(repo))
    engine_pid, child_pid = _running_engine(h, task["id"], with_child=True)

    os.kill(agent.pid, signal.SIGKILL)
    agent.wait(5)
    wait_for(lambda: not pid_alive(engine_pid), timeout_s=30, what="the engine to die with its agent")
    h.start_agent("m1")  # a new agent process reaps what is left and reports itself
    done = h.wait_status(task["id"])

    assert child_pid is not None and not pid_alive(child_pid)
    assert (done["status"], done["attempts"]) == ("completed", 2)
    starts = h.engine_starts(task["id"])
    assert [s["attempt"] for s in starts] == ["1", "2"]
    kinds = [e["kind"] for e in h.events(task["id"])]
    assert kinds.count("started") == 2 and "requeued" in kinds


def test_an_agent_killed_on_the_last_attempt_fails_the_task_once_its_lease_expires(
        h: AgentHarness, repo: Path, container: Container) -> None:
    agent = h.start_agent("m1")
    task = new_task(h.client, "[fake:sleep=120]", repo=str(repo), max_attempts=1)
    engine_pid, _ = _running_engine(h, task["id"])

    os.kill(agent.pid, signal.SIGKILL)
    agent.wait(5)
    wait_for(lambda: not pid_alive(engine_pid), timeout_s=30, what="the engine to die with its agent")
    wait_for(lambda: container.task_sweeper.sweep().recovered, timeout_s=10, every_s=0.5,
             what="the sweep to find the lost lease")

    done = h.client.get(f"/api/tasks/{task['id']}")
    assert (done["status"], done["attempts"]) == ("failed", 1)
    assert "lease expired" in done["error"]


def test_a_duplicated_task_message_runs_the_engine_once(
        h: AgentHarness, repo: Path, container: Container) -> None:
    h.start_agent("m1")
    task = new_task(h.client, "[fake:sleep=1] [fake:write=once.txt]", repo=str(repo), machine="m1")
    for _ in range(3):
        duplicate = {"kind": "task", "task_id": task["id"], "dispatch_seq": 1}
        container.task_queues.send_to_machine("m1", duplicate)

    done = h.wait_status(task["id"])
    wait_for(lambda: container.queues.depth("machine-m1") == 0, what="the duplicates to be consumed")

    assert (done["status"], done["attempts"]) == ("completed", 1)
    assert len(h.engine_starts(task["id"])) == 1


def test_a_cancel_during_a_run_kills_the_whole_process_tree(h: AgentHarness, repo: Path) -> None:
    h.start_agent("m1")
    task = new_task(h.client, "[fake:child] [fake:sleep=120]", repo=str(repo))
    engine_pid, child_pid = _running_engine(h, task["id"], with_child=True)

    answer = h.client.post(f"/api/tasks/{task['id']}/cancel")
    done = h.wait_status(task["id"], timeout_s=20)

    assert answer["cancel_requested"] is True
    assert done["status"] == "cancelled"
    assert not pid_alive(engine_pid)
    assert child_pid is not None and not pid_alive(child_pid)


def test_a_poison_message_goes_to_the_dlq_and_the_agent_keeps_working(
        h: AgentHarness, repo: Path, container: Container) -> None:
    h.start_agent("m1", ITACHI_AGENT_VISIBILITY_S="1")
    container.queues.send("machine-m1", {"kind": "nonsense"})
    task = new_task(h.client, "[fake:write=after.txt]", repo=str(repo))

    done = h.wait_status(task["id"])
    poison = wait_for(lambda: container.queues.receive("machine-m1-dlq", wait_s=1), timeout_s=20,
                      what="the poison message in the DLQ")

    assert done["status"] == "completed"
    assert [m.body for m in poison] == ['{"kind": "nonsense"}']
