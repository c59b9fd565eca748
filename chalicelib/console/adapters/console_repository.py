"""Console sessions and one-time links in Postgres (migration 0120)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from chalicelib.console.domain.cookies import ConsoleSession
from chalicelib.console.services.ports import ConsoleUnits
from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.kernel.stored_text import Verbatim
from chalicelib.kernel.unit_of_work import postgres_units


class PostgresConsoleRepository(PostgresRepository):
    def open(self, token_hash: bytes, session: ConsoleSession) -> None:
        self._conn.execute(
            "INSERT INTO console_sessions (token_hash, csrf_token, signed_in_as, expires_at, key_hash) "
            "VALUES (%s, %s, %s, %s, %s)",
            (token_hash, Verbatim(session.csrf_token), session.signed_in_as,  # compared with each form's
             session.expires_at, session.key_hash),
        )

    def live(self, token_hash: bytes, now: datetime) -> ConsoleSession | None:
        row = self._conn.execute(
            "SELECT csrf_token, signed_in_as, expires_at, key_hash FROM console_sessions "
            "WHERE token_hash = %s AND ended_at IS NULL AND expires_at > %s",
            (token_hash, now),
        ).fetchone()
        if row is None:
            return None
        key = bytes(row["key_hash"]) if row["key_hash"] is not None else None
        return ConsoleSession(row["csrf_token"], row["signed_in_as"], row["expires_at"], key)

    def end(self, token_hash: bytes, now: datetime) -> None:
        self._conn.execute(
            "UPDATE console_sessions SET ended_at = %s WHERE token_hash = %s AND ended_at IS NULL",
            (now, token_hash),
        )

    def add_link(self, token_hash: bytes, created_by: str, key_hash: bytes, expires_at: datetime) -> None:
        self._conn.execute(
            "INSERT INTO console_links (token_hash, created_by, key_hash, expires_at) "
            "VALUES (%s, %s, %s, %s)",
            (token_hash, created_by, key_hash, expires_at),
        )

    def spend_link(self, token_hash: bytes, now: datetime) -> tuple[str, bytes | None] | None:
        row = self._conn.execute(
            "UPDATE console_links SET used_at = %s WHERE token_hash = %s AND used_at IS NULL "
            "AND expires_at > %s RETURNING created_by, key_hash",
            (now, token_hash, now),
        ).fetchone()
        if row is None:
            return None
        return row["created_by"], bytes(row["key_hash"]) if row["key_hash"] is not None else None

    def purge(self, now: datetime) -> int:
        cutoff = now - timedelta(days=1)
        gone = self._conn.execute("DELETE FROM console_sessions WHERE expires_at < %s", (cutoff,)).rowcount
        return int(
            gone + self._conn.execute("DELETE FROM console_links WHERE expires_at < %s", (cutoff,)).rowcount
        )


def console_units(db: Any) -> ConsoleUnits:
    return postgres_units(db, console=PostgresConsoleRepository)
