"""The memory core's Postgres unit of work: the repository and the search bound to one transaction.

A deadlock or serialization failure leaves the unit as `TransientConflict`, the port's word for
"run the whole unit again", so services retry without knowing the driver.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import psycopg

from chalicelib.kernel.unit_of_work import PostgresUnitOfWork, postgres_units
from chalicelib.memory.adapters.graph_transfer_repository import PostgresGraphTransferRepository
from chalicelib.memory.adapters.import_repository import PostgresImportCheck
from chalicelib.memory.adapters.integrity_repository import PostgresIntegrityRepository
from chalicelib.memory.adapters.lifecycle_repository import PostgresLifecycleRepository
from chalicelib.memory.adapters.memory_repository import PostgresMemoryRepository
from chalicelib.memory.adapters.memory_search import PostgresMemorySearch
from chalicelib.memory.adapters.recall_repository import PostgresMemoryRecall
from chalicelib.memory.adapters.review_repository import PostgresReviewRepository
from chalicelib.memory.adapters.search_explain import PostgresSearchExplain
from chalicelib.memory.adapters.search_facts_repository import PostgresSearchFacts
from chalicelib.memory.adapters.search_statistics import SearchStatistics
from chalicelib.memory.adapters.snapshot_repository import PostgresSnapshotRepository
from chalicelib.memory.adapters.transfer_repository import PostgresTransferRepository
from chalicelib.memory.services.ports import MemoryUnits, TransientConflict

TRANSIENT = (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure)


class RetryableUnitOfWork(PostgresUnitOfWork):
    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        super().__exit__(exc_type, exc, tb)
        if isinstance(exc, TRANSIENT):
            raise TransientConflict(type(exc).__name__) from exc


def memory_units(db: Any) -> MemoryUnits:
    """A factory of memory units over `db` (one statistics snapshot shared by all of them).

    Beside `MemoryUnitOfWork` it binds what the lifecycle, review, transfer and search-facts ports name."""
    statistics = SearchStatistics()
    return postgres_units(
        db, RetryableUnitOfWork, memories=PostgresMemoryRepository,
        search=lambda conn: PostgresMemorySearch(conn, statistics), lifecycle=PostgresLifecycleRepository,
        integrity=PostgresIntegrityRepository, transfer=PostgresTransferRepository,
        graph_transfer=PostgresGraphTransferRepository, snapshots=PostgresSnapshotRepository,
        recall=PostgresMemoryRecall, explain=lambda conn: PostgresSearchExplain(conn, statistics),
        imports=PostgresImportCheck, review=PostgresReviewRepository, search_facts=PostgresSearchFacts)
