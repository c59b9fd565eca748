"""Retention on a database with aged rows: the cleanup removes only each kind's rows past its
retention, in batches, never another memory, and `/api/status` reports what it removed."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from chalicelib.bootstrap import Container
from chalicelib.ops.domain.retention import RetentionPolicy
from chalicelib.ops.services.housekeeping import apply_retention
from functions import cleanup
from tests.conftest import RunningApi

DEFAULTS = {"task_events": 90, "session_edits": 90, "transcript_chunks": 180, "llm_usage": 400}


def seed_aged_rows(url: str) -> dict[str, dict[str, int]]:
    """For each kind, rows just past its retention and rows just inside it; other memories of
    every age. Returns the counts inserted by kind and age."""
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        task = str(uuid.uuid4())
        conn.execute("INSERT INTO tasks (id, project, description, time_budget_s) VALUES (%s, 'p', 'd', 60)",
                     (task,))
        for seq, age in enumerate([100, 95, 91, 89, 10], start=1):
            conn.execute("INSERT INTO task_events (task_id, seq, kind, created_at)"
                         " VALUES (%s, %s, 'log', now() - make_interval(days => %s))", (task, seq, age))
        for age in [400, 120, 91, 80, 1]:
            conn.execute("INSERT INTO session_edits (session_id, project, file, tool, created_at)"
                         " VALUES ('s', 'p', 'f.py', 'Edit', now() - make_interval(days => %s))", (age,))
        for n, (category, age) in enumerate([("transcript", 365), ("transcript", 181), ("transcript", 179),
                                             ("transcript", 2), ("lesson", 999), ("decision", 500),
                                             ("code_change", 200)]):
            conn.execute("INSERT INTO memories (project, category, content, content_hash, created_at)"
                         " VALUES ('p', %s, %s, %s, now() - make_interval(days => %s))",
                         (category, f"memory {n}", f"h{n}", age))
        for age in [800, 401, 399, 0]:
            conn.execute("INSERT INTO llm_usage (day, purpose, model, status, created_at)"
                         " VALUES ((now() AT TIME ZONE 'utc')::date - %s, 'x', 'm', 'ok',"
                         " now() - make_interval(days => %s))", (age, age))
    return {"task_events": {"old": 3, "kept": 2}, "session_edits": {"old": 3, "kept": 2},
            "transcript_chunks": {"old": 2, "kept": 2}, "llm_usage": {"old": 2, "kept": 2}}


def counts(url: str) -> dict[str, Any]:
    with psycopg.connect(url, row_factory=dict_row) as conn:
        def one(sql: str) -> Any:
            row = conn.execute(sql).fetchone()
            assert row is not None
            return row["n"]

        return {
            "task_events": one("SELECT count(*) AS n FROM task_events"),
            "task_events_oldest": one("SELECT max(extract(day FROM now() - created_at))::int AS n"
                                      " FROM task_events"),
            "session_edits": one("SELECT count(*) AS n FROM session_edits"),
            "session_edits_oldest": one("SELECT max(extract(day FROM now() - created_at))::int AS n"
                                        " FROM session_edits"),
            "transcripts": one("SELECT count(*) AS n FROM memories WHERE category = 'transcript'"),
            "transcripts_oldest": one("SELECT max(extract(day FROM now() - created_at))::int AS n"
                                      " FROM memories WHERE category = 'transcript'"),
            "other_memories": one("SELECT count(*) AS n FROM memories WHERE category <> 'transcript'"),
            "llm_usage": one("SELECT count(*) AS n FROM llm_usage"),
            "llm_usage_oldest": one("SELECT max((now() AT TIME ZONE 'utc')::date - day) AS n FROM llm_usage"),
        }


def test_cleanup_removes_only_rows_past_each_kinds_retention_and_no_other_memory(
        container: Container, database_url: str) -> None:
    seeded = seed_aged_rows(database_url)

    result = cleanup.handler({}, None)

    assert result["retention"]["removed"] == {k: v["old"] for k, v in seeded.items()}
    assert result["retention"]["complete"] is True
    after = counts(database_url)
    assert after["task_events"] == 2 and after["task_events_oldest"] == 89
    assert after["session_edits"] == 2 and after["session_edits_oldest"] == 80
    assert after["transcripts"] == 2 and after["transcripts_oldest"] == 179
    assert after["other_memories"] == 3  # a 999-day-old lesson included: memories are not a kind
    assert after["llm_usage"] == 2 and after["llm_usage_oldest"] == 399


def test_small_batches_take_every_old_row_and_a_spent_time_budget_stops_between_batches(
        container: Container, database_url: str) -> None:
    seed_aged_rows(database_url)
    rows = container.retention_rows
    ticks = iter(range(1000))

    stopped = apply_retention(rows, RetentionPolicy(DEFAULTS, batch_rows=1, time_budget_s=2),
                              clock=lambda: float(next(ticks)))
    assert stopped.complete is False and sum(stopped.removed.values()) == 1

    finished = apply_retention(rows, RetentionPolicy(DEFAULTS, batch_rows=1, time_budget_s=600))
    assert finished.complete is True
    assert sum(finished.removed.values()) == 9
    assert counts(database_url)["other_memories"] == 3


def test_a_kind_kept_for_zero_days_is_kept_forever(container: Container, database_url: str) -> None:
    seed_aged_rows(database_url)

    run = apply_retention(container.retention_rows, RetentionPolicy({**DEFAULTS, "llm_usage": 0}))

    assert "llm_usage" not in run.removed
    assert counts(database_url)["llm_usage"] == 4


def test_status_reports_the_retention_settings_and_what_the_last_run_removed(
        api: RunningApi, database_url: str) -> None:
    assert api.call("GET", "/api/status")["retention"] == {"days": DEFAULTS, "last_run": None}
    seed_aged_rows(database_url)
    cleanup.handler({}, None)

    retention = api.call("GET", "/api/status")["retention"]

    assert retention["days"] == DEFAULTS
    assert retention["last_run"]["removed"] == {"task_events": 3, "session_edits": 3,
                                                "transcript_chunks": 2, "llm_usage": 2}
    assert retention["last_run"]["complete"] is True


def test_itachi_status_prints_the_settings_and_the_rows_removed_by_kind(
        api: RunningApi, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.health.status_report import retention_line

    monkeypatch.delenv("ITACHI_API_URL", raising=False)
    monkeypatch.delenv("ITACHI_API_KEY", raising=False)
    home = tmp_path / "client"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"api_url": api.url, "api_key": api.key}))
    assert retention_line(home).endswith("no cleanup has run yet")
    seed_aged_rows(database_url)
    cleanup.handler({}, None)

    line = retention_line(home)

    assert line.startswith("kept: task events 90 days, session edits 90 days, transcript chunks 180 days,"
                           " LLM usage rows 400 days; last run ")
    assert line.endswith("removed 3 task events, 3 session edits, 2 transcript chunks, 2 LLM usage rows")
