"""The session capability's Postgres unit of work: its repository and the idempotency claims."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.kernel.idempotency import PostgresClaims
from chalicelib.kernel.unit_of_work import PostgresUnitOfWork
from chalicelib.sessions.adapters.session_repository import PostgresSessionRepository


class PostgresSessionUnitOfWork(PostgresUnitOfWork):
    sessions: PostgresSessionRepository
    claims: PostgresClaims

    def _bind(self, conn: Any) -> None:
        self.sessions = PostgresSessionRepository(conn)
        self.claims = PostgresClaims(conn)


def session_units(db: Any) -> Callable[[], PostgresSessionUnitOfWork]:
    return lambda: PostgresSessionUnitOfWork(db)
