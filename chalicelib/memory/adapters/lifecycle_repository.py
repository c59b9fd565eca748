"""Postgres side of the memory lifecycle: usage facts, eviction steps, the archive, restore, listing.

Bound to one unit of work's connection. A step is claimed in `memory_eviction_steps` by
(run key, memory) in the same transaction as its effect, so a rerun of an interrupted run
skips what the first attempt did; the archive insert and the phase update are guarded by the
phase they expect, so a step never applies twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from chalicelib.memory.adapters.memory_rows import COLUMNS, MEMORIES, Conn, to_memory
from chalicelib.memory.domain.memory_lifecycle import (
    ARCHIVED,
    KEEP_TAG,
    LESSON_CATEGORIES,
    PROTECTED_CATEGORIES,
    PROTECTED_LESSON_CONFIDENCE,
    Step,
    UsageFacts,
    difficulty_of,
)
from chalicelib.memory.domain.memory_model import Memory

LIVE_ROW = "superseded_by IS NULL AND phase < 3"
# The usage facts of the live, unprotected memories of one project that a run has not touched:
# recency counts the project's sessions started since the memory was created or last used.
_FACTS = """
SELECT m.id, m.phase, a.access_count, s.tool_failures, s.tool_successes, s.compactions,
  (SELECT count(*) FROM sessions x WHERE x.project = m.project
     AND x.started_at > greatest(m.created_at, m.last_reinforced_at, a.last_accessed_at)) AS since
FROM memories m
LEFT JOIN memory_access a ON a.memory_id = m.id
LEFT JOIN sessions s ON s.session_id = m.session_id
WHERE m.project = %(project)s AND m.superseded_by IS NULL AND m.phase < 3
  AND NOT (m.category = ANY(%(protected)s))
  AND NOT (m.category = ANY(%(lessons)s) AND m.confidence >= %(confident)s)
  AND NOT (m.tags @> ARRAY[%(keep)s]::text[])
  AND NOT EXISTS (SELECT 1 FROM memory_eviction_steps e WHERE e.run_key = %(run)s AND e.memory_id = m.id)
"""


class PostgresLifecycleRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def live_counts(self, project: str | None, over: int) -> list[tuple[str, int]]:
        """(project, live memories) of every project (or one) holding more than `over`."""
        rows = self._conn.execute(
            f"SELECT project, count(*) AS n FROM memories WHERE {LIVE_ROW}"
            " AND (%(p)s::text IS NULL OR project = %(p)s) GROUP BY project HAVING count(*) > %(over)s"
            " ORDER BY project", {"p": project, "over": over}).fetchall()
        return [(r["project"], int(r["n"])) for r in rows]

    def run_progress(self, run_key: str, project: str) -> tuple[int, int]:
        """(steps this run took in the project, of which into the archived phase)."""
        row = self._conn.execute(
            "SELECT count(*) AS n, count(*) FILTER (WHERE to_phase = %s) AS archived"
            " FROM memory_eviction_steps WHERE run_key = %s AND project = %s",
            (ARCHIVED, run_key, project)).fetchone()
        return (int(row["n"]), int(row["archived"])) if row else (0, 0)

    def usage_facts(self, project: str, run_key: str) -> list[UsageFacts]:
        params = {"project": project, "protected": sorted(PROTECTED_CATEGORIES),
                  "lessons": sorted(LESSON_CATEGORIES), "confident": PROTECTED_LESSON_CONFIDENCE,
                  "keep": KEEP_TAG, "run": run_key}
        rows = self._conn.execute(_FACTS, params, prepare=False).fetchall()
        return [UsageFacts(
            memory_id=str(r["id"]), phase=int(r["phase"]),
            difficulty=difficulty_of(r["tool_failures"], r["tool_successes"], r["compactions"]),
            sessions_since_use=int(r["since"]), access_count=int(r["access_count"] or 0)) for r in rows]

    def texts(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """id -> (content, phase) of the given memories."""
        rows = self._conn.execute("SELECT id, content, phase FROM memories WHERE id = ANY(%s::uuid[])",
                                  (list(memory_ids),)).fetchall()
        return {str(r["id"]): (r["content"], int(r["phase"])) for r in rows}

    def apply_steps(self, run_key: str, project: str, steps: Sequence[Step]) -> set[str]:
        """Claim and apply `steps` (archive first, then the new text and phase); return the ids
        applied. A step already claimed by this run, or whose memory moved on, does nothing."""
        if not steps:
            return set()
        ids = [s.memory_id for s in steps]
        claimed = {str(r["memory_id"]) for r in self._conn.execute(
            "INSERT INTO memory_eviction_steps (run_key, memory_id, project, from_phase, to_phase)"
            " SELECT %s, u.id, %s, u.f, u.f + 1 FROM unnest(%s::uuid[], %s::smallint[]) AS u(id, f)"
            " JOIN memories m ON m.id = u.id AND m.phase = u.f"
            " ON CONFLICT (run_key, memory_id) DO NOTHING RETURNING memory_id",
            (run_key, project, ids, [s.from_phase for s in steps])).fetchall()}
        mine = [s for s in steps if s.memory_id in claimed]
        archive = [s.memory_id for s in mine if s.archives]
        if archive:
            self._conn.execute(
                "INSERT INTO memory_archive (memory_id, project, category, content, summary)"
                " SELECT id, project, category, content, summary FROM memories"
                " WHERE id = ANY(%s::uuid[]) AND phase = 0 ON CONFLICT (memory_id) DO NOTHING", (archive,))
        if mine:
            self._conn.execute(
                "UPDATE memories m SET content = coalesce(u.text, m.content), phase = u.f + 1,"
                " updated_at = now()"
                " FROM unnest(%s::uuid[], %s::smallint[], %s::text[]) AS u(id, f, text)"
                " WHERE m.id = u.id AND m.phase = u.f",
                ([s.memory_id for s in mine], [s.from_phase for s in mine], [s.text for s in mine]))
        return claimed

    def forget_old_steps(self, older_than_days: int) -> int:
        return self._conn.execute("DELETE FROM memory_eviction_steps WHERE done_at < now() - %s::interval",
                                  (f"{int(older_than_days)} days",)).rowcount

    def archive_of(self, memory_id: str) -> tuple[str, str] | None:
        """(content, summary) of the archived original, or None."""
        row = self._conn.execute("SELECT content, summary FROM memory_archive WHERE memory_id = %s",
                                 (memory_id,)).fetchone()
        return (row["content"], row["summary"]) if row else None

    def restore(self, memory_id: str) -> bool:
        """Put the archived original back (phase full) and drop the archive row; False if none."""
        row = self._conn.execute(
            "WITH gone AS (DELETE FROM memory_archive WHERE memory_id = %s RETURNING content, summary)"
            " UPDATE memories m SET content = g.content, summary = g.summary, phase = 0, updated_at = now()"
            " FROM gone g WHERE m.id = %s RETURNING m.id", (memory_id, memory_id)).fetchone()
        return row is not None

    def set_tags(self, memory_id: str, add: Sequence[str], remove: Sequence[str]) -> bool:
        return self._conn.execute(
            "UPDATE memories SET tags = ARRAY(SELECT DISTINCT t FROM unnest(tags || %s::text[]) AS t"
            " WHERE NOT (t = ANY(%s::text[])) ORDER BY t), updated_at = now() WHERE id = %s",
            (list(add), list(remove), memory_id)).rowcount == 1

    def listing(self, *, project: str | None, phase: int | None, tag: str | None, category: str | None,
                after: tuple[datetime, str] | None, limit: int) -> list[Memory]:
        """Memories newest first (any phase unless one is given), after a (created_at, id) cursor."""
        where: list[str] = ["true"]
        params: dict[str, Any] = {"limit": limit}
        for clause, key, value in (("m.project = %(project)s", "project", project),
                                   ("m.phase = %(phase)s", "phase", phase),
                                   ("m.tags @> ARRAY[%(tag)s]::text[]", "tag", tag),
                                   ("m.category = %(category)s", "category", category)):
            if value is not None:
                where.append(clause)
                params[key] = value
        if after is not None:
            where.append("(m.created_at, m.id) < (%(at)s, %(id)s::uuid)")
            params.update(at=after[0], id=after[1])
        rows = self._conn.execute(
            f"SELECT {COLUMNS} FROM {MEMORIES} WHERE {' AND '.join(where)}"
            " ORDER BY m.created_at DESC, m.id DESC LIMIT %(limit)s", params, prepare=False).fetchall()
        return [to_memory(r) for r in rows]

    def phase_counts(self, project: str | None) -> dict[int, int]:
        rows = self._conn.execute(
            "SELECT phase, count(*) AS n FROM memories WHERE %(p)s::text IS NULL OR project = %(p)s"
            " GROUP BY phase", {"p": project}).fetchall()
        return {int(r["phase"]): int(r["n"]) for r in rows}
