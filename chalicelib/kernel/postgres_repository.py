"""The base of the Postgres repositories: one unit of work's connection, and its one-row answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import psycopg
from psycopg.abc import Params

Conn = psycopg.Connection[Any]


class PostgresRepository:
    """A repository over the connection a unit of work binds it to (`postgres_units(db, name=Repo)`)."""

    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def _one(self, query: str, params: Params | None = None) -> dict[str, Any]:
        """The row a statement always returns (an INSERT or UPDATE ... RETURNING that cannot miss)."""
        row = self._conn.execute(query, params).fetchone()
        assert row is not None, "the statement returned no row"
        return row  # type: ignore[no-any-return]

    def _all(self, query: str, params: Params | None = None) -> list[dict[str, Any]]:
        """Every row a query returns, each a plain dict."""
        return [dict(row) for row in self._conn.execute(query, params).fetchall()]

    def _insert_once(self, table: str, values: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
        """Insert `values` (column: value) into `table` unless its `idempotency_key` is taken: (the new
        row, True), or (the row already stored under that key, False)."""
        columns, marks = ", ".join(values), ", ".join(["%s"] * len(values))
        row = self._conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})"
                                 " ON CONFLICT (idempotency_key) DO NOTHING RETURNING *",
                                 list(values.values())).fetchone()
        if row is not None:
            return row, True
        key = values["idempotency_key"]
        return self._one(f"SELECT * FROM {table} WHERE idempotency_key = %s", (key,)), False
