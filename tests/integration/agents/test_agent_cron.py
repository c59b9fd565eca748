"""Cron jobs of subagents against real Postgres: a due job fires exactly once, however many
scheduler invocations run at the same moment, and moves on to its next time."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.bootstrap import Container
from chalicelib.kernel.errors import InvalidInput
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, offline_machine


def make_due(container: Container, job_id: str, minutes_ago: int = 1) -> None:
    with container.db.connection() as conn:
        conn.execute(
            "UPDATE agent_cron SET next_fire_at = now() - make_interval(mins => %s) WHERE id = %s",
            (minutes_ago, job_id),
        )
        conn.commit()


def fire_concurrently(container: Container, invocations: int) -> list[list[str]]:
    barrier = threading.Barrier(invocations)
    results: list[list[str]] = [[] for _ in range(invocations)]

    def invoke(i: int) -> None:
        barrier.wait()
        results[i] = [run.id for run in container.agent_cron.fire_due()]

    threads = [threading.Thread(target=invoke, args=(i,)) for i in range(invocations)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_a_due_job_fires_exactly_once_with_two_scheduler_invocations_at_once(container: Container) -> None:
    jobs = [
        container.agent_cron.add(
            schedule="0 9 * * mon", prompt=f"check release notes {i}", profile="researcher", project="deps"
        )
        for i in range(12)
    ]
    for job in jobs:
        make_due(container, job.id)

    results = fire_concurrently(container, 2)

    fired = [run_id for result in results for run_id in result]
    assert len(fired) == len(set(fired)) == len(jobs)
    with container.db.connection() as conn:
        rows = conn.execute(
            "SELECT prompt, count(*) AS n, min(origin) AS origin, bool_and(task_id IS NOT NULL)"
            " AS tasked FROM agent_runs GROUP BY prompt"
        ).fetchall()
        states = conn.execute("SELECT fire_count, next_fire_at, enabled FROM agent_cron").fetchall()
    assert sorted(r["prompt"] for r in rows) == sorted(j.prompt for j in jobs)
    assert all(r["n"] == 1 and r["origin"] == "cron" and r["tasked"] for r in rows)
    now = datetime.now(UTC)
    assert all(s["fire_count"] == 1 and s["enabled"] and s["next_fire_at"] > now for s in states)
    assert all(s["next_fire_at"].weekday() == 0 and s["next_fire_at"].hour == 9 for s in states)
    assert fire_concurrently(container, 2) == [[], []]  # nothing is due any more


def test_a_job_past_its_until_fires_its_last_run_and_is_disabled(container: Container) -> None:
    until = datetime.now(UTC) + timedelta(days=8)
    job = container.agent_cron.add(
        schedule="0 9 * * mon", prompt="last look", profile="researcher", until=until
    )
    with container.db.connection() as conn:
        conn.execute(
            "UPDATE agent_cron SET next_fire_at = now() - interval '1 minute', until_at = now()"
            " WHERE id = %s",
            (job.id,),
        )
        conn.commit()

    (run,) = container.agent_cron.fire_due()

    (state,) = container.agent_cron.jobs("researcher")
    assert run.prompt == "last look" and run.origin == "cron"
    assert state.enabled is False and state.next_fire_at is None and state.fire_count == 1


def test_cron_jobs_are_added_by_a_run_listed_and_removed_over_the_api(
    api: RunningApi, container: Container
) -> None:
    client = client_for(api.url, api.key)
    offline_machine(client, "nowhere")
    run = client.post(
        "/api/agents/runs",
        {"profile": "researcher", "prompt": "Watch the pydantic releases", "machine": "nowhere"},
    )
    job = client.post(
        "/api/agents/cron",
        {"schedule": "0 9 * * mon", "prompt": "Read pydantic's release notes", "run_id": run["id"]},
    )
    assert job["profile"] == "researcher" and job["created_by_run"] == run["id"]
    assert [j["id"] for j in client.get("/api/agents/cron", profile="researcher")["jobs"]] == [job["id"]]
    client.delete(f"/api/agents/cron/{job['id']}")
    assert client.get("/api/agents/cron")["jobs"] == []
    with pytest.raises(InvalidInput):
        container.agent_cron.add(schedule="61 * * * *", prompt="x", profile="researcher")
