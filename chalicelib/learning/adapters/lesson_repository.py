"""Lesson bookkeeping in Postgres: counters, applications to tasks, confidence events, and the
record of each session's extraction. Bound to one unit of work's connection (one transaction)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

Conn = psycopg.Connection[Any]


class PostgresLessonBook:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def ensure_stats(self, lesson_id: str) -> None:
        self._conn.execute("INSERT INTO lesson_stats (lesson_id) VALUES (%s) ON CONFLICT DO NOTHING",
                           (lesson_id,))

    def stats(self, lesson_id: str) -> dict[str, Any]:
        row = self._conn.execute("SELECT * FROM lesson_stats WHERE lesson_id = %s", (lesson_id,)).fetchone()
        return dict(row) if row else {"applications": 0, "successes": 0, "failures": 0,
                                      "good_feedback": 0, "bad_feedback": 0}

    def count_outcome(self, lesson_id: str, success: bool) -> None:
        self.ensure_stats(lesson_id)
        column = "successes" if success else "failures"
        self._conn.execute(f"UPDATE lesson_stats SET applications = applications + 1,"
                           f" {column} = {column} + 1 WHERE lesson_id = %s", (lesson_id,))

    def count_feedback(self, lesson_id: str, good: bool) -> None:
        self.ensure_stats(lesson_id)
        column = "good_feedback" if good else "bad_feedback"
        self._conn.execute(f"UPDATE lesson_stats SET {column} = {column} + 1 WHERE lesson_id = %s",
                           (lesson_id,))

    def record_applications(self, task_id: str, lesson_ids: Sequence[str]) -> None:
        for lesson_id in lesson_ids:
            self._conn.execute("INSERT INTO lesson_applications (task_id, lesson_id) VALUES (%s, %s)"
                               " ON CONFLICT DO NOTHING", (task_id, lesson_id))
            self.ensure_stats(lesson_id)
            self._conn.execute("UPDATE lesson_stats SET last_applied_at = now() WHERE lesson_id = %s",
                               (lesson_id,))

    def applied_to(self, task_id: str) -> list[str]:
        rows = self._conn.execute("SELECT lesson_id FROM lesson_applications WHERE task_id = %s"
                                  " ORDER BY applied_at, lesson_id", (task_id,)).fetchall()
        return [str(r["lesson_id"]) for r in rows]

    def log_event(self, lesson_id: str, kind: str, before: float, after: float,
                  task_id: str | None = None) -> None:
        self._conn.execute("INSERT INTO lesson_events (lesson_id, kind, task_id, confidence_before,"
                           " confidence_after) VALUES (%s, %s, %s, %s, %s)",
                           (lesson_id, kind, task_id, before, after))

    def due_for_review(self, min_applications: int, not_since_days: int) -> list[dict[str, Any]]:
        """Lessons with enough applications not reviewed within `not_since_days`, locked for update."""
        rows = self._conn.execute(
            "SELECT s.lesson_id, s.applications, s.successes, m.confidence FROM lesson_stats s"
            " JOIN memories m ON m.id = s.lesson_id WHERE s.applications >= %s AND m.superseded_by IS NULL"
            " AND (s.last_reviewed_at IS NULL OR s.last_reviewed_at < now() - make_interval(days => %s))"
            " ORDER BY s.lesson_id FOR UPDATE OF s, m",
            (min_applications, not_since_days),
        ).fetchall()
        return [dict(r) for r in rows]

    def mark_reviewed(self, lesson_id: str) -> None:
        self._conn.execute("UPDATE lesson_stats SET last_reviewed_at = now() WHERE lesson_id = %s",
                           (lesson_id,))


class PostgresSessionExtractions:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def get(self, session_id: str) -> dict[str, Any] | None:
        row = self._conn.execute("SELECT result FROM session_extractions WHERE session_id = %s",
                                 (session_id,)).fetchone()
        return dict(row["result"]) if row else None

    def save(self, session_id: str, project: str, extractor: str, significance: float,
             result: dict[str, Any]) -> bool:
        row = self._conn.execute(
            "INSERT INTO session_extractions (session_id, project, extractor, significance, result)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING session_id",
            (session_id, project, extractor, significance, Jsonb(result)),
        ).fetchone()
        return row is not None
