"""The repositories registry (table `repos`), filled by GitHub sync."""

from __future__ import annotations

from typing import Any

import psycopg

from chalicelib.codeintel.domain.github_repos import RepoRecord

Conn = psycopg.Connection[Any]
_FIELDS = (
    "full_name",
    "name",
    "owner",
    "default_branch",
    "clone_url",
    "html_url",
    "description",
    "private",
    "archived",
)


class PostgresRepoRegistry:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def upsert(self, repo: RepoRecord) -> str:
        """'added', 'updated' or 'unchanged' (an unchanged row is not written at all)."""
        values = {f: getattr(repo, f) for f in _FIELDS}
        row = self._conn.execute(
            "INSERT INTO repos (full_name, name, owner, default_branch, clone_url, html_url, description,"
            " private, archived) VALUES (%(full_name)s, %(name)s, %(owner)s, %(default_branch)s,"
            " %(clone_url)s, %(html_url)s, %(description)s, %(private)s, %(archived)s)"
            " ON CONFLICT (full_name) DO UPDATE SET name = EXCLUDED.name, owner = EXCLUDED.owner,"
            " default_branch = EXCLUDED.default_branch, clone_url = EXCLUDED.clone_url,"
            " html_url = EXCLUDED.html_url, description = EXCLUDED.description, private = EXCLUDED.private,"
            " archived = EXCLUDED.archived, updated_at = now()"
            " WHERE (repos.name, repos.owner, repos.default_branch, repos.clone_url, repos.html_url,"
            " repos.description, repos.private, repos.archived) IS DISTINCT FROM (EXCLUDED.name,"
            " EXCLUDED.owner, EXCLUDED.default_branch, EXCLUDED.clone_url, EXCLUDED.html_url,"
            " EXCLUDED.description, EXCLUDED.private, EXCLUDED.archived)"
            " RETURNING (xmax = 0) AS inserted",
            values,
        ).fetchone()
        if row is None:
            return "unchanged"
        return "added" if row["inserted"] else "updated"

    def all(self) -> list[dict[str, Any]]:
        rows = self._conn.execute(
            "SELECT full_name, name, default_branch, clone_url, private, archived FROM repos"
            " ORDER BY lower(full_name)"
        ).fetchall()
        return [dict(r) for r in rows]
