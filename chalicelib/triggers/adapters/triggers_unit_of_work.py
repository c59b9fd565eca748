"""The triggers' unit of work: the delivery records (`processed_messages`) on one transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.kernel.idempotency import PostgresClaims
from chalicelib.kernel.unit_of_work import PostgresUnitOfWork


class PostgresTriggersUnitOfWork(PostgresUnitOfWork):
    claims: PostgresClaims

    def _bind(self, conn: Any) -> None:
        self.claims = PostgresClaims(conn)


def triggers_units(db: Any) -> Callable[[], PostgresTriggersUnitOfWork]:
    return lambda: PostgresTriggersUnitOfWork(db)
