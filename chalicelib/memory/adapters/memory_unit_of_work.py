"""The memory core's Postgres unit of work: the repository and the search bound to one transaction.

A deadlock or serialization failure leaves the unit as `TransientConflict`, the port's word for
"run the whole unit again", so services retry without knowing the driver.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any

import psycopg

from chalicelib.kernel.unit_of_work import PostgresUnitOfWork
from chalicelib.memory.adapters.graph_transfer_repository import PostgresGraphTransferRepository
from chalicelib.memory.adapters.import_repository import PostgresImportCheck
from chalicelib.memory.adapters.integrity_repository import PostgresIntegrityRepository
from chalicelib.memory.adapters.lifecycle_repository import PostgresLifecycleRepository
from chalicelib.memory.adapters.memory_repository import PostgresMemoryRepository
from chalicelib.memory.adapters.memory_search import PostgresMemorySearch
from chalicelib.memory.adapters.recall_repository import PostgresMemoryRecall
from chalicelib.memory.adapters.review_repository import PostgresReviewRepository
from chalicelib.memory.adapters.search_explain import PostgresSearchExplain
from chalicelib.memory.adapters.search_statistics import SearchStatistics
from chalicelib.memory.adapters.snapshot_repository import PostgresSnapshotRepository
from chalicelib.memory.adapters.transfer_repository import PostgresTransferRepository
from chalicelib.memory.services.ports import TransientConflict

TRANSIENT = (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure)


class PostgresMemoryUnitOfWork(PostgresUnitOfWork):
    memories: PostgresMemoryRepository
    search: PostgresMemorySearch
    lifecycle: PostgresLifecycleRepository
    integrity: PostgresIntegrityRepository
    transfer: PostgresTransferRepository
    graph_transfer: PostgresGraphTransferRepository
    snapshots: PostgresSnapshotRepository
    recall: PostgresMemoryRecall
    explain: PostgresSearchExplain
    imports: PostgresImportCheck
    review: PostgresReviewRepository

    def __init__(self, db: Any, statistics: SearchStatistics) -> None:
        super().__init__(db)
        self._statistics = statistics

    def _bind(self, conn: Any) -> None:
        self.memories = PostgresMemoryRepository(conn)
        self.search = PostgresMemorySearch(conn, self._statistics)
        self.lifecycle = PostgresLifecycleRepository(conn)
        self.integrity = PostgresIntegrityRepository(conn)
        self.transfer = PostgresTransferRepository(conn)
        self.graph_transfer = PostgresGraphTransferRepository(conn)
        self.snapshots = PostgresSnapshotRepository(conn)
        self.recall = PostgresMemoryRecall(conn)
        self.explain = PostgresSearchExplain(conn, self._statistics)
        self.imports = PostgresImportCheck(conn)
        self.review = PostgresReviewRepository(conn)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        super().__exit__(exc_type, exc, tb)
        if isinstance(exc, TRANSIENT):
            raise TransientConflict(type(exc).__name__) from exc


def memory_units(db: Any) -> Callable[[], PostgresMemoryUnitOfWork]:
    """A factory of memory units over `db` (one statistics snapshot shared by all of them)."""
    statistics = SearchStatistics()
    return lambda: PostgresMemoryUnitOfWork(db, statistics)
