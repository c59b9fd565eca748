"""The console's read-only SQL over memories, the learning loop's tables and sessions."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from chalicelib.kernel.postgres_repository import PostgresRepository

LEARNED_CATEGORIES = ["task_lesson"]  # rules are read from the one instruction store


class PostgresConsoleReads(PostgresRepository):
    def projects(self) -> list[dict[str, Any]]:
        # A loose index scan over memories_project_created: one probe per project, not a scan of
        # every memory (600 projects in 100k memories: milliseconds instead of a GROUP BY).
        return list(
            self._conn.execute(
                "WITH RECURSIVE p AS ("
                " (SELECT project FROM memories ORDER BY project LIMIT 1)"
                " UNION ALL"
                " SELECT (SELECT m.project FROM memories m WHERE m.project > p.project"
                " ORDER BY m.project LIMIT 1)"
                " FROM p WHERE p.project IS NOT NULL)"
                " SELECT project FROM p WHERE project IS NOT NULL LIMIT 1000"
            ).fetchall()
        )

    def learned(self, projects: Sequence[str] | None, limit: int) -> list[dict[str, Any]]:
        return list(
            self._conn.execute(
                "SELECT m.id::text AS id, m.project, m.category, m.content, m.confidence, m.times_reinforced,"
                " m.created_at, m.last_reinforced_at, s.applications, s.successes, s.failures,"
                " s.good_feedback, s.bad_feedback"
                " FROM memories m LEFT JOIN lesson_stats s ON s.lesson_id = m.id"
                " WHERE m.category = ANY(%(cats)s) AND m.superseded_by IS NULL AND m.phase < 3"
                " AND (%(p)s::text[] IS NULL OR m.project = ANY(%(p)s))"
                " ORDER BY m.confidence DESC, m.last_reinforced_at DESC LIMIT %(limit)s",
                {"cats": LEARNED_CATEGORIES, "p": list(projects) if projects is not None else None,
                 "limit": limit},
            ).fetchall()
        )

    def lesson_history(self, lesson_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {i: [] for i in lesson_ids}
        if not lesson_ids:
            return out
        rows = self._conn.execute(
            "SELECT lesson_id::text AS lesson_id, kind, task_id, confidence_before, confidence_after,"
            " created_at FROM lesson_events WHERE lesson_id = ANY(%s::uuid[])"
            " ORDER BY created_at DESC LIMIT 2000",
            (lesson_ids,),
        ).fetchall()
        for row in rows:
            out[row["lesson_id"]].append(row)
        return out

    def sessions(self, project: str | None, limit: int) -> list[dict[str, Any]]:
        return list(
            self._conn.execute(
                "SELECT s.session_id, s.project, s.client, s.started_at, s.ended_at, s.end_reason, s.summary,"
                " s.files_changed,"
                " (SELECT count(*) FROM jsonb_array_elements(CASE WHEN jsonb_typeof(s.transcript) = 'array'"
                "   THEN s.transcript ELSE '[]'::jsonb END) t WHERE t->>'role' = 'user') AS prompts,"
                " (SELECT count(*) FROM session_edits d WHERE d.session_id = s.session_id) AS edits,"
                " (SELECT coalesce(array_agg(f.file ORDER BY f.n DESC), '{}') FROM"
                "   (SELECT d.file, count(*) AS n FROM session_edits d WHERE d.session_id = s.session_id"
                "    GROUP BY d.file ORDER BY count(*) DESC LIMIT 5) f) AS hot_files"
                " FROM sessions s WHERE (%(p)s::text IS NULL OR s.project = %(p)s)"
                " ORDER BY s.started_at DESC LIMIT %(limit)s",
                {"p": project, "limit": limit},
            ).fetchall()
        )

    def embeddings_by_day(self, days: int) -> list[dict[str, Any]]:
        return list(
            self._conn.execute(
                "SELECT (created_at AT TIME ZONE 'utc')::date AS day,"
                " coalesce(embedding_model, 'none') AS model, count(*) AS memories FROM memories"
                " WHERE created_at > now() - make_interval(days => %s) GROUP BY 1, 2 ORDER BY 1, 2",
                (days,),
            ).fetchall()
        )


@contextmanager
def console_reads(db: Any) -> Iterator[PostgresConsoleReads]:
    with db.connection() as conn:
        try:
            yield PostgresConsoleReads(conn)
        finally:
            conn.rollback()
