"""Postgres: `api_keys` (hashes only), bound to one unit of work's connection."""

from __future__ import annotations

from typing import Any

import psycopg

from chalicelib.auth.domain.api_keys import ApiKey, KeyKind, KeySpec
from chalicelib.kernel.errors import Conflict
from chalicelib.kernel.unit_of_work import PostgresUnitOfWork

Conn = psycopg.Connection[Any]
_COLUMNS = "id, name, kind, machine_id, projects, read_only, key_prefix, created_at, revoked_at"


def _key(row: dict[str, Any]) -> ApiKey:
    projects = tuple(row["projects"]) if row["projects"] is not None else None
    spec = KeySpec(row["name"], KeyKind(row["kind"]), row["machine_id"], projects, row["read_only"])
    return ApiKey(str(row["id"]), spec, row["key_prefix"], row["created_at"], row["revoked_at"])


class PostgresKeyRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def add(self, key: ApiKey, key_hash: bytes) -> ApiKey:
        s = key.spec
        projects = list(s.projects) if s.projects is not None else None
        try:
            with self._conn.transaction():  # a savepoint: the unit stays usable after a conflict
                row = self._conn.execute(
                    "INSERT INTO api_keys (id, name, kind, machine_id, projects, read_only, key_hash,"
                    f" key_prefix) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING {_COLUMNS}",
                    (key.id, s.name, s.kind.value, s.machine_id, projects, s.read_only, key_hash,
                     key.prefix)).fetchone()
        except psycopg.errors.UniqueViolation:
            raise Conflict(f"a live key is already named {s.name!r}: revoke it first", field="name") from None
        assert row is not None
        return _key(row)

    def live_by_hash(self, key_hash: bytes) -> ApiKey | None:
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM api_keys WHERE key_hash = %s AND revoked_at IS NULL",
            (key_hash,)).fetchone()
        return _key(row) if row else None

    def listing(self, *, include_revoked: bool) -> list[ApiKey]:
        where = "" if include_revoked else " WHERE revoked_at IS NULL"
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM api_keys{where} ORDER BY name, created_at").fetchall()
        return [_key(r) for r in rows]

    def revoke(self, name: str) -> ApiKey | None:
        row = self._conn.execute(
            "UPDATE api_keys SET revoked_at = now() WHERE name = %s AND revoked_at IS NULL"
            f" RETURNING {_COLUMNS}",
            (name,)).fetchone()
        return _key(row) if row else None


class PostgresKeysUnitOfWork(PostgresUnitOfWork):
    keys: PostgresKeyRepository

    def _bind(self, conn: Any) -> None:
        self.keys = PostgresKeyRepository(conn)
