"""Which contents a project already holds, by content hash (for idempotent imports)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

Conn = psycopg.Connection[Any]


class PostgresImportCheck:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def present(self, project: str, hashes: Sequence[str]) -> set[str]:
        """The hashes of `hashes` that a memory of `project` has, whatever its phase or state."""
        rows = self._conn.execute(
            "SELECT content_hash FROM memories WHERE project = %s AND content_hash = ANY(%s)",
            (project, list(hashes))).fetchall()
        return {r["content_hash"] for r in rows}
