"""The tasks unit of work over Postgres: one pooled connection, one transaction, six repositories
and the idempotency claims."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.kernel.idempotency import PostgresClaims
from chalicelib.kernel.unit_of_work import PostgresUnitOfWork, postgres_units
from chalicelib.tasks.adapters.agent_session_repository import AgentSessionRepository
from chalicelib.tasks.adapters.machine_repository import MachineRepository
from chalicelib.tasks.adapters.spend_repository import SpendRepository
from chalicelib.tasks.adapters.task_event_repository import TaskEventRepository, TaskOutcomeRepository
from chalicelib.tasks.adapters.task_repository import TaskRepository
from chalicelib.tasks.services.ports import TasksUnitOfWork

# The key of the transaction-scoped advisory lock that serialises dispatch decisions.
DISPATCH_LOCK = 7_146_040


class DispatchLockingUnitOfWork(PostgresUnitOfWork):
    def lock_dispatch(self) -> None:
        """Held until commit or rollback: two dispatchers cannot both fill a machine's last slot."""
        self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (DISPATCH_LOCK,))


def tasks_units(db: Any) -> Callable[[], TasksUnitOfWork]:
    return postgres_units(db, DispatchLockingUnitOfWork, tasks=TaskRepository, events=TaskEventRepository,
                          outcomes=TaskOutcomeRepository, machines=MachineRepository,
                          sessions=AgentSessionRepository, claims=PostgresClaims, spending=SpendRepository)
