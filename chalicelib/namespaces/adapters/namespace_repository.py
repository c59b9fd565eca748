"""Postgres access to `namespaces` and `namespace_projects`, and their unit of work."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import psycopg

from chalicelib.kernel.errors import Conflict
from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.kernel.unit_of_work import postgres_units
from chalicelib.namespaces.domain.namespace import Namespace
from chalicelib.namespaces.services.namespaces import NamespaceUnit

_NAMESPACES = ("SELECT n.name, n.created_at, coalesce(array_agg(p.project ORDER BY p.project)"
               " FILTER (WHERE p.project IS NOT NULL), '{}') AS projects"
               " FROM namespaces n LEFT JOIN namespace_projects p ON p.namespace = n.name")


def _namespace(row: dict[str, Any]) -> Namespace:
    return Namespace(row["name"], tuple(row["projects"]), row["created_at"])


class PostgresNamespaces(PostgresRepository):
    def create(self, name: str) -> None:
        try:
            with self._conn.transaction():  # a savepoint: the unit stays usable after a conflict
                self._conn.execute("INSERT INTO namespaces (name) VALUES (%s)", (name,))
        except psycopg.errors.UniqueViolation:
            raise Conflict(f"a namespace is already named {name!r}", field="name") from None

    def add(self, name: str, projects: Sequence[str]) -> None:
        self._conn.execute(
            "INSERT INTO namespace_projects (namespace, project) SELECT %s, p FROM unnest(%s::text[]) AS p"
            " ON CONFLICT DO NOTHING", (name, list(projects)))

    def remove(self, name: str, projects: Sequence[str]) -> int:
        return self._conn.execute("DELETE FROM namespace_projects WHERE namespace = %s AND project = ANY(%s)",
                                  (name, list(projects))).rowcount

    def get(self, name: str) -> Namespace | None:
        row = self._conn.execute(f"{_NAMESPACES} WHERE n.name = %s GROUP BY n.name", (name,)).fetchone()
        return _namespace(row) if row else None

    def listing(self) -> list[Namespace]:
        return [_namespace(r) for r in self._conn.execute(f"{_NAMESPACES} GROUP BY n.name ORDER BY n.name")]

    def of_project(self, project: str) -> list[str]:
        rows = self._conn.execute("SELECT namespace FROM namespace_projects WHERE project = %s"
                                  " ORDER BY namespace", (project,)).fetchall()
        return [r["namespace"] for r in rows]

    def members(self, names: Sequence[str]) -> list[str]:
        rows = self._conn.execute("SELECT DISTINCT project FROM namespace_projects WHERE namespace = ANY(%s)",
                                  (list(names),)).fetchall()
        return [r["project"] for r in rows]


def namespace_units(db: Any) -> Callable[[], NamespaceUnit]:
    return postgres_units(db, namespaces=PostgresNamespaces)
