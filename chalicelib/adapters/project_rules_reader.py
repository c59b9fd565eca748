"""Read a project's standing rules (`project_rule` memories) for task prompts.

The memory schema belongs to the memory area; this reader asks only for columns that area
documents (project, category, content, superseded_by, confidence, created_at) and answers
an empty list when the table does not exist in this deployment.
"""

from __future__ import annotations

from chalicelib.adapters.database import Database

GLOBAL_PROJECT = "_global"


class ProjectRulesReader:
    def __init__(self, db: Database, limit: int = 10) -> None:
        self._db = db
        self._limit = limit

    def rules(self, project: str) -> list[str]:
        with self._db.connection() as conn:
            present = conn.execute("SELECT to_regclass('memories') AS t").fetchone()
            if not present or not present["t"]:
                return []
            rows = conn.execute(
                "SELECT content FROM memories WHERE project = ANY(%s) AND category = 'project_rule'"
                " AND superseded_by IS NULL ORDER BY confidence DESC, created_at DESC LIMIT %s",
                ([project, GLOBAL_PROJECT], self._limit),
            ).fetchall()
        return [str(r["content"]) for r in rows]
