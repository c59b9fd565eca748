"""Postgres storage of hook-reported sessions, their edits and events, and the briefing queries.

Bound to one unit of work's connection: everything runs in the caller's transaction.
"""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from chalicelib.kernel.idempotency import PostgresClaims
from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.kernel.unit_of_work import postgres_units
from chalicelib.sessions.services.ports import SessionUnits


class PostgresSessionRepository(PostgresRepository):
    def record_event(self, session_id: str, project: str, client: str, event: str,
                     data: dict[str, Any], *, progress: str | None, compaction: bool, failure: bool) -> None:
        """Upsert the session and append the event."""
        self._conn.execute(
            "INSERT INTO sessions (session_id, project, client, last_progress, compactions,"
            " tool_failures) VALUES (%s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (session_id) DO UPDATE SET"
            " last_progress = COALESCE(EXCLUDED.last_progress, sessions.last_progress),"
            " compactions = sessions.compactions + EXCLUDED.compactions,"
            " tool_failures = sessions.tool_failures + EXCLUDED.tool_failures,"
            " updated_at = now()",
            (session_id, project, client, progress, int(compaction), int(failure)),
        )
        self._conn.execute(
            "INSERT INTO session_events (session_id, project, event, data) VALUES (%s, %s, %s, %s)",
            (session_id, project, event, Jsonb(data)),
        )

    def record_edit(self, edit: dict[str, Any]) -> None:
        """Store an edit and count it as a tool success (unless it failed)."""
        self._conn.execute(
            "INSERT INTO session_edits (session_id, project, file, tool, lines_added,"
            " lines_removed, language, diff, failed) VALUES (%(session_id)s, %(project)s,"
            " %(file)s, %(tool)s, %(lines_added)s, %(lines_removed)s, %(language)s, %(diff)s,"
            " %(failed)s)",
            edit,
        )
        self._conn.execute(
            "INSERT INTO sessions (session_id, project, tool_successes) VALUES (%s, %s, %s) "
            "ON CONFLICT (session_id) DO UPDATE SET"
            " tool_successes = sessions.tool_successes + EXCLUDED.tool_successes,"
            " updated_at = now()",
            (edit["session_id"], edit["project"], 0 if edit["failed"] else 1),
        )

    def complete(self, session: dict[str, Any]) -> dict[str, Any]:
        """Close the session (idempotent: a replay overwrites with the same values)."""
        transcript = session.get("transcript")
        row = self._one(
            "INSERT INTO sessions (session_id, project, client, ended_at, end_reason,"
            " duration_ms, summary, files_changed, transcript)"
            " VALUES (%(session_id)s, %(project)s, %(client)s, now(), %(reason)s,"
            " %(duration_ms)s, %(summary)s, %(files_changed)s, %(transcript)s) "
            "ON CONFLICT (session_id) DO UPDATE SET ended_at = COALESCE(sessions.ended_at, now()),"
            " end_reason = EXCLUDED.end_reason,"
            " duration_ms = COALESCE(EXCLUDED.duration_ms, sessions.duration_ms),"
            " summary = COALESCE(EXCLUDED.summary, sessions.summary),"
            " files_changed = EXCLUDED.files_changed,"
            " transcript = COALESCE(EXCLUDED.transcript, sessions.transcript),"
            " updated_at = now() "
            "RETURNING session_id, tool_failures, tool_successes, compactions",
            {**session, "transcript": Jsonb(transcript) if transcript is not None else None},
        )
        return dict(row)

    def get(self, session_id: str) -> dict[str, Any] | None:
        row = self._conn.execute("SELECT * FROM sessions WHERE session_id = %s", (session_id,)).fetchone()
        return dict(row) if row else None

    def recent_sessions(self, project: str, limit: int) -> list[dict[str, Any]]:
        return self._all(
            "SELECT session_id, COALESCE(summary, last_progress, '') AS summary, ended_at,"
            " files_changed FROM sessions WHERE project = %s"
            " ORDER BY COALESCE(ended_at, updated_at) DESC LIMIT %s",
            (project, limit),
        )

    def hot_files(self, project: str, days: int, limit: int) -> list[dict[str, Any]]:
        return self._all(
            "SELECT file AS path, count(*) AS edits FROM session_edits"
            " WHERE project = %s AND NOT failed AND created_at > now() - make_interval(days => %s)"
            " GROUP BY file ORDER BY count(*) DESC, max(created_at) DESC LIMIT %s",
            (project, days, limit),
        )

    def recent_memory_texts(self, project: str, categories: tuple[str, ...],
                            limit: int) -> list[tuple[str, str]]:
        rows = self._conn.execute(
            "SELECT id::text AS id, COALESCE(NULLIF(summary, ''), content) AS text FROM memories"
            # Live ones only, as search reads them: not superseded, retired or archived.
            " WHERE project = %s AND category = ANY(%s) AND superseded_by IS NULL AND valid_until IS NULL"
            " AND phase < 3 AND trusted"
            " ORDER BY created_at DESC LIMIT %s",
            (project, list(categories), limit),
        ).fetchall()
        return [(r["id"], r["text"]) for r in rows]

    def active_tasks(self, project: str, limit: int) -> list[dict[str, Any]]:
        return self._all(
            "SELECT id::text AS id, status, description FROM tasks WHERE project = %s"
            " AND status IN ('queued', 'dispatched', 'running') ORDER BY created_at DESC LIMIT %s",
            (project, limit),
        )


def session_units(db: Any) -> SessionUnits:
    return postgres_units(db, sessions=PostgresSessionRepository, claims=PostgresClaims)
