"""The code-intelligence unit of work: its reads and products, the repos registry, and claims."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.codeintel.adapters.codeintel_repository import PostgresCodeIntel
from chalicelib.codeintel.adapters.repo_registry import PostgresRepoRegistry
from chalicelib.kernel.unit_of_work import PostgresUnitOfWork


class PostgresCodeIntelUnitOfWork(PostgresUnitOfWork):
    intel: PostgresCodeIntel
    repos: PostgresRepoRegistry

    def _bind(self, conn: Any) -> None:
        self.intel = PostgresCodeIntel(conn)
        self.repos = PostgresRepoRegistry(conn)


def codeintel_units(db: Any) -> Callable[[], PostgresCodeIntelUnitOfWork]:
    return lambda: PostgresCodeIntelUnitOfWork(db)
