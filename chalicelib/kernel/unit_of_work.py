"""The unit of work: one transaction, the repositories bound to it, and what to do after commit.

A service asks its factory for a unit of work, uses the repositories it exposes, and commits
once. Leaving the block without `commit()` rolls back. Effects that leave the process (SQS
sends, Telegram announcements) are registered with `after_commit` and run only once the
transaction is durable, so a rolled-back change never announces anything.

Each capability declares the repositories its unit of work exposes (a Protocol in its
`services/ports.py`); its adapters name the constructor of each (`postgres_units(db, name=Repo)`),
and unit tests build an in-memory one on `InMemoryUnitOfWork`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType, TracebackType
from typing import Any, Protocol, Self

from chalicelib.kernel.logging import log_failure
from chalicelib.kernel.request_transaction import after_request_commit


class UnitOfWork(Protocol):
    def __enter__(self) -> Self: ...

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...

    def commit(self) -> None: ...

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run `action` once the transaction has committed (never if it rolls back)."""
        ...


class Claims(Protocol):
    """A consumer's idempotency records, bound to the unit (`kernel.idempotency.PostgresClaims`)."""

    def claim(self, consumer: str, key: str) -> bool:
        """Record (consumer, key) with the unit's work; False if it was processed before."""
        ...


class _AfterCommit:
    """The shared bookkeeping: actions queued during the transaction, run after commit."""

    def __init__(self) -> None:
        self._actions: list[Callable[[], None]] = []
        self.committed = False

    def after_commit(self, action: Callable[[], None]) -> None:
        self._actions.append(action)

    def _run_after_commit(self) -> None:
        actions, self._actions = self._actions, []
        # Inside a request-wide transaction the real commit is still to come: wait for it.
        if actions and after_request_commit(lambda: _run_all(actions)):
            return
        _run_all(actions)


def _run_all(actions: list[Callable[[], None]]) -> None:
    for action in actions:
        try:
            action()
        except Exception as exc:  # the change is durable; a failed announcement must not undo the reply
            log_failure("after-commit action failed", exc)


# Builds one repository over the unit's connection (a repository class taking `conn`).
RepositoryFactory = Callable[[Any], object]


class PostgresUnitOfWork(_AfterCommit):
    """A pooled connection in one transaction, with each of `repositories` built over it and bound
    as the attribute of its name (`uow.tasks` for `tasks=TaskRepository`)."""

    def __init__(self, db: Any, repositories: Mapping[str, RepositoryFactory] = MappingProxyType({})) -> None:
        super().__init__()
        self._db = db
        self._repositories = repositories
        self._cm: Any = None
        self.conn: Any = None

    def _bind(self, conn: Any) -> None:
        for name, build in self._repositories.items():
            setattr(self, name, build(conn))

    def __enter__(self) -> Self:
        self._cm = self._db.connection()
        self.conn = self._cm.__enter__()
        self.committed = False
        self._bind(self.conn)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is None and not self.committed:
            self.conn.rollback()
        self._cm.__exit__(exc_type, exc, tb)
        self._cm = self.conn = None
        if self.committed and exc_type is None:
            self._run_after_commit()

    def commit(self) -> None:
        self.conn.commit()
        self.committed = True


def postgres_units(db: Any, unit: type[PostgresUnitOfWork] = PostgresUnitOfWork, /,
                   **repositories: RepositoryFactory) -> Callable[[], Any]:
    """A factory of Postgres units over `db` binding `repositories` (`unit` a subclass for a capability
    that adds to the transaction). The caller types it as its capability's unit port
    (`services/ports.py`), which says what each repository promises."""
    bound = MappingProxyType(dict(repositories))
    return lambda: unit(db, bound)


class InMemoryUnitOfWork(_AfterCommit):
    """For unit tests: repositories are plain objects; commit only records that it happened."""

    commits = 0

    def __enter__(self) -> Self:
        self.committed = False
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.committed and exc_type is None:
            self._run_after_commit()

    def commit(self) -> None:
        self.committed = True
        self.commits += 1
