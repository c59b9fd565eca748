"""Postgres reads of sessions, edits and memories for the code-intelligence workers, and their
own products table. Bound to one unit of work's connection."""

from __future__ import annotations

from typing import Any

import psycopg

from chalicelib.codeintel.adapters.repo_registry import PostgresRepoRegistry
from chalicelib.codeintel.domain.cross_project import Learned
from chalicelib.codeintel.domain.edit_patterns import EditRow
from chalicelib.codeintel.domain.products import Product
from chalicelib.codeintel.domain.style_profile import EditText
from chalicelib.codeintel.services.ports import CodeIntelUnits
from chalicelib.kernel.unit_of_work import postgres_units

Conn = psycopg.Connection[Any]
LIVE = "superseded_by IS NULL AND phase < 3"


class PostgresCodeIntel:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    # -- products: what each worker last wrote -------------------------------------------------
    def product(self, worker: str, project: str, subject: str) -> Product | None:
        row = self._conn.execute(
            "SELECT source_mark, content_hash, memory_ids, generator FROM codeintel_products"
            " WHERE worker = %s AND project = %s AND subject = %s",
            (worker, project, subject),
        ).fetchone()
        if row is None:
            return None
        return Product(int(row["source_mark"]), row["content_hash"], tuple(row["memory_ids"]),
                       row["generator"])

    def save_product(self, worker: str, project: str, subject: str, product: Product) -> None:
        self._conn.execute(
            "INSERT INTO codeintel_products (worker, project, subject, source_mark, content_hash, memory_ids,"
            " generator) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (worker, project, subject) DO UPDATE"
            " SET source_mark = EXCLUDED.source_mark, content_hash = EXCLUDED.content_hash,"
            " memory_ids = EXCLUDED.memory_ids, generator = EXCLUDED.generator, updated_at = now()",
            (worker, project, subject, product.mark, product.content_hash, list(product.memory_ids),
             product.generator),
        )

    def drop_memories(self, ids: list[str]) -> None:
        """Forget derived memories a newer product replaced (they are regenerated, never edited)."""
        if ids:
            self._conn.execute("DELETE FROM memories WHERE id = ANY(%s::uuid[])", (ids,))

    # -- what the workers read ---------------------------------------------------------------
    def sessions_without(self, worker: str, limit: int, *, with_transcript: bool) -> list[dict[str, Any]]:
        """Ended sessions this worker has not produced anything for, oldest first."""
        transcript = (
            " AND s.transcript IS NOT NULL AND jsonb_array_length(s.transcript) > 0"
            if with_transcript
            else ""
        )
        rows = self._conn.execute(
            "SELECT s.session_id, s.project, s.summary, s.last_progress, s.files_changed, s.transcript,"
            " s.ended_at FROM sessions s WHERE s.ended_at IS NOT NULL"
            + transcript
            + " AND NOT EXISTS (SELECT 1 FROM codeintel_products p WHERE p.worker = %s"
            " AND p.project = s.project AND p.subject = s.session_id)"
            " ORDER BY s.ended_at, s.session_id LIMIT %s",
            (worker, limit),
        ).fetchall()
        return [dict(r) for r in rows]

    def session_files(self, session_id: str, limit: int = 50) -> list[str]:
        rows = self._conn.execute(
            "SELECT file FROM session_edits WHERE session_id = %s AND NOT failed GROUP BY file"
            " ORDER BY min(id) LIMIT %s",
            (session_id, limit),
        ).fetchall()
        return [r["file"] for r in rows]

    def projects_with_new_edits(self, worker: str, limit: int) -> list[tuple[str, int]]:
        """(project, newest edit id) for projects with edits this worker has not seen yet."""
        rows = self._conn.execute(
            "SELECT e.project, max(e.id) AS mark FROM session_edits e GROUP BY e.project"
            " HAVING max(e.id) > COALESCE((SELECT max(p.source_mark) FROM codeintel_products p"
            " WHERE p.worker = %s AND p.project = e.project), 0)"
            " ORDER BY max(e.id) DESC LIMIT %s",
            (worker, limit),
        ).fetchall()
        return [(r["project"], int(r["mark"])) for r in rows]

    def recent_edits(self, project: str, days: int, limit: int) -> list[EditRow]:
        rows = self._conn.execute(
            "SELECT session_id, file, lines_added, lines_removed, failed FROM session_edits"
            " WHERE project = %s AND created_at > now() - make_interval(days => %s)"
            " ORDER BY id DESC LIMIT %s",
            (project, days, limit),
        ).fetchall()
        return [
            EditRow(r["session_id"], r["file"], r["lines_added"], r["lines_removed"], r["failed"])
            for r in rows
        ]

    def edit_texts(self, project: str, limit: int) -> list[EditText]:
        rows = self._conn.execute(
            "SELECT file, language, diff FROM session_edits WHERE project = %s AND NOT failed"
            " ORDER BY id DESC LIMIT %s",
            (project, limit),
        ).fetchall()
        return [EditText(r["file"], r["language"], r["diff"]) for r in rows]

    def file_counts(self, project: str, limit: int) -> list[tuple[str, int]]:
        rows = self._conn.execute(
            "SELECT file, count(*) AS n FROM session_edits WHERE project = %s AND NOT failed"
            " GROUP BY file ORDER BY count(*) DESC, file LIMIT %s",
            (project, limit),
        ).fetchall()
        return [(r["file"], int(r["n"])) for r in rows]

    def session_count(self, project: str) -> int:
        row = self._conn.execute(
            "SELECT count(*) AS n FROM sessions WHERE project = %s", (project,)
        ).fetchone()
        return int(row["n"]) if row else 0

    def memory_texts(self, project: str, categories: tuple[str, ...], limit: int) -> list[str]:
        rows = self._conn.execute(
            "SELECT content FROM memories WHERE project = %s AND category = ANY(%s) AND "
            + LIVE
            + " ORDER BY confidence DESC, created_at DESC LIMIT %s",
            (project, list(categories), limit),
        ).fetchall()
        return [r["content"] for r in rows]

    def latest_memory(self, project: str, category: str) -> str | None:
        row = self._conn.execute(
            "SELECT content FROM memories WHERE project = %s AND category = %s AND "
            + LIVE
            + " ORDER BY created_at DESC LIMIT 1",
            (project, category),
        ).fetchone()
        return row["content"] if row else None

    def learned(self, categories: tuple[str, ...], min_confidence: float, limit: int) -> list[Learned]:
        rows = self._conn.execute(
            "SELECT id::text AS id, project, category, content, confidence FROM memories"
            " WHERE category = ANY(%s) AND project <> '_global' AND confidence >= %s AND "
            + LIVE
            + " ORDER BY confidence DESC, id LIMIT %s",
            (list(categories), min_confidence, limit),
        ).fetchall()
        return [
            Learned(r["id"], r["project"], r["category"], r["content"], float(r["confidence"])) for r in rows
        ]


def codeintel_units(db: Any) -> CodeIntelUnits:
    return postgres_units(db, intel=PostgresCodeIntel, repos=PostgresRepoRegistry)
