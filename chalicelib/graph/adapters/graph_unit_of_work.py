"""The graph's Postgres unit of work: its repository bound to one pooled connection."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.graph.adapters.graph_repository import PostgresGraphRepository
from chalicelib.kernel.unit_of_work import PostgresUnitOfWork


class PostgresGraphUnitOfWork(PostgresUnitOfWork):
    graph: PostgresGraphRepository

    def _bind(self, conn: Any) -> None:
        self.graph = PostgresGraphRepository(conn)


def graph_units(db: Any) -> Callable[[], PostgresGraphUnitOfWork]:
    return lambda: PostgresGraphUnitOfWork(db)
