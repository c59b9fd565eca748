"""Lesson bookkeeping in Postgres: counters, applications to tasks, confidence events, and the
record of each session's extraction. Methods take the caller's connection (one transaction)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

Conn = psycopg.Connection[Any]


class LessonRepository:
    def ensure_stats(self, conn: Conn, lesson_id: str) -> None:
        conn.execute("INSERT INTO lesson_stats (lesson_id) VALUES (%s) ON CONFLICT DO NOTHING", (lesson_id,))

    def stats(self, conn: Conn, lesson_id: str) -> dict[str, Any]:
        row = conn.execute("SELECT * FROM lesson_stats WHERE lesson_id = %s", (lesson_id,)).fetchone()
        return dict(row) if row else {"applications": 0, "successes": 0, "failures": 0,
                                      "good_feedback": 0, "bad_feedback": 0}

    def count_outcome(self, conn: Conn, lesson_id: str, success: bool) -> None:
        self.ensure_stats(conn, lesson_id)
        column = "successes" if success else "failures"
        conn.execute(f"UPDATE lesson_stats SET applications = applications + 1, {column} = {column} + 1"
                     " WHERE lesson_id = %s", (lesson_id,))

    def count_feedback(self, conn: Conn, lesson_id: str, good: bool) -> None:
        self.ensure_stats(conn, lesson_id)
        column = "good_feedback" if good else "bad_feedback"
        conn.execute(f"UPDATE lesson_stats SET {column} = {column} + 1 WHERE lesson_id = %s", (lesson_id,))

    def record_applications(self, conn: Conn, task_id: str, lesson_ids: Sequence[str]) -> None:
        for lesson_id in lesson_ids:
            conn.execute("INSERT INTO lesson_applications (task_id, lesson_id) VALUES (%s, %s)"
                         " ON CONFLICT DO NOTHING", (task_id, lesson_id))
            self.ensure_stats(conn, lesson_id)
            conn.execute("UPDATE lesson_stats SET last_applied_at = now() WHERE lesson_id = %s",
                         (lesson_id,))

    def applied_to(self, conn: Conn, task_id: str) -> list[str]:
        rows = conn.execute("SELECT lesson_id FROM lesson_applications WHERE task_id = %s"
                            " ORDER BY applied_at, lesson_id", (task_id,)).fetchall()
        return [str(r["lesson_id"]) for r in rows]

    def log_event(self, conn: Conn, lesson_id: str, kind: str, before: float, after: float,
                  task_id: str | None = None) -> None:
        conn.execute("INSERT INTO lesson_events (lesson_id, kind, task_id, confidence_before,"
                     " confidence_after) VALUES (%s, %s, %s, %s, %s)",
                     (lesson_id, kind, task_id, before, after))

    def due_for_review(self, conn: Conn, min_applications: int, not_since_days: int) -> list[dict[str, Any]]:
        """Lessons with enough applications not reviewed within `not_since_days`, locked for update."""
        rows = conn.execute(
            "SELECT s.lesson_id, s.applications, s.successes, m.confidence FROM lesson_stats s"
            " JOIN memories m ON m.id = s.lesson_id WHERE s.applications >= %s AND m.superseded_by IS NULL"
            " AND (s.last_reviewed_at IS NULL OR s.last_reviewed_at < now() - make_interval(days => %s))"
            " ORDER BY s.lesson_id FOR UPDATE OF s, m",
            (min_applications, not_since_days),
        ).fetchall()
        return [dict(r) for r in rows]

    def mark_reviewed(self, conn: Conn, lesson_id: str) -> None:
        conn.execute("UPDATE lesson_stats SET last_reviewed_at = now() WHERE lesson_id = %s", (lesson_id,))


class SessionExtractionRepository:
    def get(self, conn: Conn, session_id: str) -> dict[str, Any] | None:
        row = conn.execute("SELECT result FROM session_extractions WHERE session_id = %s",
                           (session_id,)).fetchone()
        return dict(row["result"]) if row else None

    def save(self, conn: Conn, session_id: str, project: str, extractor: str, significance: float,
             result: dict[str, Any]) -> bool:
        row = conn.execute(
            "INSERT INTO session_extractions (session_id, project, extractor, significance, result)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING session_id",
            (session_id, project, extractor, significance, Jsonb(result)),
        ).fetchone()
        return row is not None
