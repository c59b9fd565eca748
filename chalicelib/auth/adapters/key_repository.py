"""Postgres: `api_keys` and `machine_invites` (hashes only), bound to one unit of work's connection."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import psycopg

from chalicelib.auth.domain.api_keys import ApiKey, KeyKind, KeySpec
from chalicelib.auth.domain.machine_invites import Invite
from chalicelib.auth.services.ports import InvitesUnitOfWork, KeysUnitOfWork
from chalicelib.kernel.errors import Conflict
from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.kernel.unit_of_work import postgres_units

_COLUMNS = "id, name, kind, machine_id, projects, read_only, key_prefix, created_at, revoked_at, namespaces"


def _key(row: dict[str, Any]) -> ApiKey:
    projects = tuple(row["projects"]) if row["projects"] is not None else None
    namespaces = tuple(row["namespaces"]) if row["namespaces"] is not None else None
    spec = KeySpec(row["name"], KeyKind(row["kind"]), row["machine_id"], projects, row["read_only"],
                   namespaces)
    return ApiKey(str(row["id"]), spec, row["key_prefix"], row["created_at"], row["revoked_at"])


class PostgresKeyRepository(PostgresRepository):
    def add(self, key: ApiKey, key_hash: bytes) -> ApiKey:
        s = key.spec
        projects = list(s.projects) if s.projects is not None else None
        namespaces = list(s.namespaces) if s.namespaces is not None else None
        try:
            with self._conn.transaction():  # a savepoint: the unit stays usable after a conflict
                row = self._conn.execute(
                    "INSERT INTO api_keys (id, name, kind, machine_id, projects, read_only, key_hash,"
                    " key_prefix, namespaces) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
                    f" RETURNING {_COLUMNS}",
                    (key.id, s.name, s.kind.value, s.machine_id, projects, s.read_only, key_hash,
                     key.prefix, namespaces)).fetchone()
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

    def lock_machine(self, machine_id: str) -> list[ApiKey]:
        self._conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                           (f"api_keys:machine:{machine_id}",))
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM api_keys WHERE kind = 'machine' AND machine_id = %s"
            " AND revoked_at IS NULL ORDER BY created_at", (machine_id,)).fetchall()
        return [_key(r) for r in rows]

    def revoke(self, name: str) -> ApiKey | None:
        row = self._conn.execute(
            "UPDATE api_keys SET revoked_at = now() WHERE name = %s AND revoked_at IS NULL"
            f" RETURNING {_COLUMNS}",
            (name,)).fetchone()
        return _key(row) if row else None


def key_units(db: Any) -> Callable[[], KeysUnitOfWork]:
    return postgres_units(db, keys=PostgresKeyRepository)


class PostgresInviteRepository(PostgresRepository):
    def add(self, invite: Invite, token_hash: bytes) -> None:
        self._conn.execute(
            "INSERT INTO machine_invites (id, token_hash, machine_id, created_by, expires_at)"
            " VALUES (%s, %s, %s, %s, %s)",
            (invite.id, token_hash, invite.machine_id, invite.created_by, invite.expires_at))

    def spend(self, token_hash: bytes, now: datetime) -> Invite | None:
        row = self._conn.execute(
            "SELECT id, machine_id, created_by, expires_at FROM machine_invites WHERE token_hash = %s"
            " AND used_at IS NULL AND expires_at > %s FOR UPDATE", (token_hash, now)).fetchone()
        if row is None:
            return None
        return Invite(str(row["id"]), row["machine_id"], row["created_by"], row["expires_at"])

    def mark_used(self, invite_id: str, machine_id: str, key_id: str) -> None:
        self._conn.execute(
            "UPDATE machine_invites SET used_at = now(), used_by = %s, key_id = %s WHERE id = %s",
            (machine_id, key_id, invite_id))


def invite_units(db: Any) -> Callable[[], InvitesUnitOfWork]:
    return postgres_units(db, keys=PostgresKeyRepository, invites=PostgresInviteRepository)
