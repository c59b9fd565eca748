"""SQL of `itachi memory check`: count each kind of trouble, and the safe repairs.

Every statement takes an optional project (NULL: the whole store). `orphan_edges` counts graph
edges that join nodes of two projects (an edge belongs to one project; edges to deleted nodes
cannot exist, they cascade); it answers None where graph memory's tables are not migrated.
"""

from __future__ import annotations

from chalicelib.memory.adapters.memory_rows import Conn

_SCOPE = "(%(p)s::text IS NULL OR m.project = %(p)s)"
_LOOP_MEMBERS = f"""
WITH RECURSIVE walk(start, node, depth) AS (
  SELECT m.id, m.superseded_by, 1 FROM memories m WHERE m.superseded_by IS NOT NULL AND {_SCOPE}
  UNION ALL
  SELECT w.start, n.superseded_by, w.depth + 1 FROM walk w JOIN memories n ON n.id = w.node
  WHERE n.superseded_by IS NOT NULL AND w.node <> w.start AND w.depth < 1000)
SELECT DISTINCT start AS id FROM walk WHERE node = start
"""
_COUNTS = {
    "missing_embeddings": f"SELECT count(*) FROM memories m WHERE m.embedding IS NULL AND {_SCOPE}",
    "foreign_model_vectors": f"SELECT count(*) FROM memories m WHERE m.embedding IS NOT NULL"
                             f" AND m.embedding_model IS DISTINCT FROM %(model)s AND {_SCOPE}",
    "duplicate_contents": f"SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM memories m"
                          f" WHERE m.superseded_by IS NULL AND {_SCOPE}"
                          f" GROUP BY m.project, md5(m.content)) g WHERE n > 1",
    "superseded_loops": f"SELECT count(*) FROM ({_LOOP_MEMBERS}) loops",
    "orphan_archives": "SELECT count(*) FROM memory_archive a"
                       " WHERE (%(p)s::text IS NULL OR a.project = %(p)s)"
                       " AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = a.memory_id)",
    "reduced_without_archive": f"SELECT count(*) FROM memories m WHERE m.phase > 0 AND {_SCOPE}"
                               " AND NOT EXISTS (SELECT 1 FROM memory_archive a WHERE a.memory_id = m.id)",
}


class PostgresIntegrityRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def counts(self, project: str | None, model: str) -> dict[str, int | None]:
        params = {"p": project, "model": model}
        found: dict[str, int | None] = {}
        for name, sql in _COUNTS.items():
            row = self._conn.execute(sql, params, prepare=False).fetchone()
            found[name] = int(next(iter(row.values()))) if row else 0
        found["orphan_edges"] = self._orphan_edges(project)
        return found

    def _orphan_edges(self, project: str | None) -> int | None:
        row = self._conn.execute("SELECT to_regclass('graph_edges') IS NOT NULL AS present").fetchone()
        if not row or not row["present"]:
            return None
        crossing = self._conn.execute(
            "SELECT count(*) AS n FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id"
            " JOIN graph_nodes t ON t.id = e.target_id"
            " WHERE s.project <> t.project AND (%(p)s::text IS NULL OR s.project = %(p)s)",
            {"p": project}).fetchone()
        return int(crossing["n"]) if crossing else 0

    def stale_vectors(self, project: str | None, model: str, limit: int) -> list[tuple[str, str, str]]:
        """(id, text, summary) of memories without a vector or with another model's, the archived
        original's text for reduced ones (the vector stands for the whole memory)."""
        rows = self._conn.execute(
            "SELECT m.id, coalesce(a.content, m.content) AS content,"
            " coalesce(a.summary, m.summary) AS summary"
            " FROM memories m LEFT JOIN memory_archive a ON a.memory_id = m.id"
            f" WHERE (m.embedding IS NULL OR m.embedding_model IS DISTINCT FROM %(model)s) AND {_SCOPE}"
            " ORDER BY m.id LIMIT %(n)s", {"p": project, "model": model, "n": limit}).fetchall()
        return [(str(r["id"]), r["content"], r["summary"]) for r in rows]

    def supersede_duplicates(self, project: str | None) -> int:
        """Mark every newer live copy of a text superseded by its oldest copy; return how many."""
        return self._conn.execute(
            "WITH ranked AS (SELECT m.id, first_value(m.id) OVER (PARTITION BY m.project, md5(m.content)"
            "   ORDER BY m.created_at, m.id) AS keep FROM memories m WHERE m.superseded_by IS NULL AND "
            f"{_SCOPE})"
            " UPDATE memories m SET superseded_by = r.keep, updated_at = now() FROM ranked r"
            " WHERE m.id = r.id AND r.id <> r.keep", {"p": project}).rowcount

    def open_loops(self, project: str | None) -> int:
        """Clear superseded_by on the newest member of every loop; return how many loops opened."""
        opened = 0
        while opened < 10_000:
            row = self._conn.execute(
                f"SELECT m.id FROM memories m WHERE m.id IN ({_LOOP_MEMBERS})"
                " ORDER BY m.updated_at DESC, m.id DESC LIMIT 1", {"p": project}, prepare=False).fetchone()
            if row is None:
                return opened
            self._conn.execute("UPDATE memories SET superseded_by = NULL, updated_at = now() WHERE id = %s",
                               (row["id"],))
            opened += 1
        return opened
