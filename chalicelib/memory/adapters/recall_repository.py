"""What memory holds about one file: trusted, live memories that list it or name it.

Bound to one unit of work's connection. The name match is a plain substring of the file's
path relative to the project (or its base name, when that is distinctive enough).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from chalicelib.memory.adapters.memory_rows import COLUMNS, LIVE, MEMORIES, to_memory
from chalicelib.memory.domain.memory_model import Memory

Conn = psycopg.Connection[Any]


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


class PostgresMemoryRecall:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def about_file(self, project: str, path: str, name: str | None, skip_categories: Sequence[str],
                   limit: int) -> list[Memory]:
        """Memories of `project` whose files hold `path` or whose text names it (or `name`)."""
        rows = self._conn.execute(
            f"SELECT {COLUMNS} FROM {MEMORIES} WHERE m.project = %(p)s AND {LIVE} AND m.trusted"
            " AND NOT (m.category = ANY(%(skip)s))"
            " AND (m.files @> ARRAY[%(path)s]::text[] OR m.content ILIKE %(like)s"
            "      OR (%(name)s::text IS NOT NULL AND m.content ILIKE %(name_like)s))"
            " ORDER BY (m.files @> ARRAY[%(path)s]::text[]) DESC, m.significance DESC,"
            " m.created_at DESC, m.id LIMIT %(n)s",
            {"p": project, "skip": list(skip_categories), "path": path, "like": _like(path),
             "name": name, "name_like": _like(name or ""), "n": limit},
            prepare=False,
        ).fetchall()
        return [to_memory(r) for r in rows]
