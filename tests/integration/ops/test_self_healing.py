"""Self-healing against real Postgres: an agent that heartbeats but leaves a task unclaimed fails
its check; three failures in a row ask for its restart as /restart does (the agent hears it in
its next heartbeat's answer) and say so in Telegram; the count survives a cold start, and a
restart loop is capped per machine and hour, the cap reported once."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest

from chalicelib.bootstrap import Container
from chalicelib.tasks.domain.machine_records import Heartbeat
from tests.fakes.fake_telegram import FakeTelegram
from tests.support.local_stack import make_container, settings_for_test

CHAT = -1001234567890


@pytest.fixture
def telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram(forums=(CHAT,)) as fake:
        yield fake


@contextmanager
def monitor_process(home: Path, database_url: str, moto_endpoint: str, fake: FakeTelegram,
                    **settings: Any) -> Iterator[Container]:
    """One process of the monitor (a Lambda container): its own home, so no state file is shared."""
    container = make_container(settings_for_test(home, database_url, moto_endpoint).replace(
        telegram_bot_token=fake.token, telegram_api_url=fake.base_url, telegram_chat_id=CHAT,
        telegram_allowed_users=(111,), **settings))
    try:
        yield container
    finally:
        container.close()


def beat(container: Container, machine: str, status: str) -> None:
    container.machine_registry.heartbeat(Heartbeat(machine, status, "agent-1", 0, 2, ("claude",), ("p",), ()))


def stuck_agent(container: Container, database_url: str, machine: str = "box") -> str:
    """A machine whose agent heartbeats, with a task sent to it five minutes ago and never claimed."""
    beat(container, machine, "online")
    task = str(uuid.uuid4())
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("INSERT INTO tasks (id, project, description, time_budget_s, status, machine_id,"
                     " dispatched_at) VALUES (%s, 'p', 'd', 600, 'dispatched', %s,"
                     " now() - interval '5 minutes')", (task, machine))
    return task


def restart_requests(database_url: str, machine: str = "box") -> list[tuple[Any, ...]]:
    with psycopg.connect(database_url) as conn:
        return conn.execute("SELECT restart_id, restart_kind, reply_chat_id FROM machine_controls"
                            " WHERE machine_id = %s AND restart_id IS NOT NULL", (machine,)).fetchall()


def restarts_logged(database_url: str) -> int:
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT count(*) FROM health_restarts WHERE NOT capped").fetchone()
    assert row is not None
    return int(row[0])


def texts(fake: FakeTelegram, mark: str) -> list[str]:
    return [t for t in fake.sent_texts(chat_id=CHAT) if mark in t]


def test_three_failed_checks_restart_the_agent_once_and_say_so(
        tmp_path: Path, database_url: str, moto_endpoint: str, telegram: FakeTelegram) -> None:
    with monitor_process(tmp_path / "a", database_url, moto_endpoint, telegram) as container:
        task = stuck_agent(container, database_url)
        reports = [container.health_monitor.run() for _ in range(4)]
        heard = container.machine_controls.on_heartbeat("box", "agent-1")

    agent_checks = [next(c for c in r.checks if c.name == "agent:box") for r in reports]
    assert [c.level for c in agent_checks] == ["critical"] * 4
    assert f"task {task[:8]}" in agent_checks[0].detail
    ((restart_id, kind, reply_chat),) = restart_requests(database_url)
    assert kind == "restart" and reply_chat == CHAT  # the chat hears when the agent is back
    assert heard["restart"] == {"id": restart_id, "kind": "restart"}  # as after /restart box
    assert restarts_logged(database_url) == 1  # the fourth failure restarted nothing more
    (said,) = texts(telegram, "🔁")
    assert said.startswith("🔁 Restarting box's agent: its check failed 3 times in a row (task ")
    assert texts(telegram, "🔴 agent:box has failed 3 checks in a row")


def test_a_cold_start_keeps_the_count_of_failed_checks(
        tmp_path: Path, database_url: str, moto_endpoint: str, telegram: FakeTelegram) -> None:
    with monitor_process(tmp_path / "first", database_url, moto_endpoint, telegram) as first:
        stuck_agent(first, database_url)
        first.health_monitor.run()
        first.health_monitor.run()
    assert restart_requests(database_url) == []

    with monitor_process(tmp_path / "second", database_url, moto_endpoint, telegram) as second:
        third = second.health_monitor.run()

    assert [c.level for c in third.checks if c.name == "agent:box"] == ["critical"]
    assert len(restart_requests(database_url)) == 1
    assert len(texts(telegram, "🔁 Restarting box's agent")) == 1


def test_a_restart_loop_is_capped_per_hour_and_the_cap_reported_once(
        tmp_path: Path, database_url: str, moto_endpoint: str, telegram: FakeTelegram) -> None:
    with monitor_process(tmp_path / "a", database_url, moto_endpoint, telegram,
                         health_max_restarts_per_hour=1) as container:
        stuck_agent(container, database_url)
        for _ in range(12):  # restarts would be due at 3, 6, 9 and 12 failures in a row
            container.health_monitor.run()

    assert restarts_logged(database_url) == 1
    assert len(texts(telegram, "🔁 Restarting box's agent")) == 1
    (capped,) = texts(telegram, "⛔")
    assert capped.startswith("⛔ box: its agent still fails (task ")
    assert "after 1 restart(s) in the last hour; not restarting it again this hour" in capped


def test_an_agent_that_claims_its_tasks_passes_and_a_silent_one_is_left_to_the_machines_check(
        tmp_path: Path, database_url: str, moto_endpoint: str, telegram: FakeTelegram) -> None:
    with monitor_process(tmp_path / "a", database_url, moto_endpoint, telegram) as container:
        beat(container, "fine", "online")
        stuck_agent(container, database_url, machine="gone")
        beat(container, "gone", "offline")
        reports = [container.health_monitor.run() for _ in range(3)]

    levels = {c.name: c.level for c in reports[-1].checks if c.name.startswith("agent:")}
    assert levels == {"agent:fine": "ok"}
    assert restart_requests(database_url, "gone") == []
