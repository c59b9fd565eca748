"""One transaction for a whole request, so a record about the request commits with its effect.

Inside `RequestTransaction.run`, every `Database.connection()` of the same database shares one
connection: each block is a savepoint (released on success, rolled back on error), and a
`commit()` a service makes there only marks its savepoint done; the real commit happens once,
when the request's own record is written (see `chalicelib.kernel.idempotency`). Work meant to
follow a commit (a unit of work's `after_commit`, an SQS send) waits for that commit.
The connection is taken on first use, so a request that never reaches the database holds none.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_current: ContextVar[RequestTransaction | None] = ContextVar("itachi_request_transaction", default=None)
_names = itertools.count(1)


def current() -> RequestTransaction | None:
    return _current.get()


def after_request_commit(action: Callable[[], object]) -> bool:
    """Queue `action` for after the request's commit; False (and nothing queued) outside one."""
    scope = _current.get()
    if scope is None:
        return False
    scope.after.append(action)
    return True


class _Savepoint:
    """The shared connection as one block sees it: commit and rollback act on its savepoint."""

    def __init__(self, conn: Any, name: str) -> None:
        self._conn = conn
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._conn, attr)

    def commit(self) -> None:
        self._conn.execute(f"RELEASE SAVEPOINT {self._name}")
        self._conn.execute(f"SAVEPOINT {self._name}")

    def rollback(self) -> None:
        self._conn.execute(f"ROLLBACK TO SAVEPOINT {self._name}")


class RequestTransaction:
    def __init__(self, db: Any, on_open: Callable[[Any], None]) -> None:
        self.db = db
        self.after: list[Callable[[], object]] = []
        self._on_open = on_open
        self._cm: Any = None
        self.conn: Any = None

    def open(self) -> Any:
        """The request's connection, taken (and `on_open` run on it) the first time."""
        if self.conn is None:
            self._cm = self.db.direct_connection()
            self.conn = self._cm.__enter__()
            self._on_open(self.conn)
        return self.conn

    @contextmanager
    def block(self) -> Iterator[Any]:
        conn = self.open()
        name = f"itachi_sp{next(_names)}"
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield _Savepoint(conn, name)
        except BaseException:
            if not conn.broken:
                conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
            raise
        conn.execute(f"RELEASE SAVEPOINT {name}")

    @contextmanager
    def active(self) -> Iterator[RequestTransaction]:
        token = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(token)

    def commit(self) -> None:
        """Commit everything the request did (opening the connection if nothing did yet)."""
        self.open()
        cm, self._cm, self.conn = self._cm, None, None
        cm.__exit__(None, None, None)  # the connection context commits
        actions, self.after = self.after, []
        for action in actions:
            try:
                action()
            except Exception as exc:  # the change is durable; a failed announcement must not undo the reply
                from chalicelib.kernel.logging import log_failure

                log_failure("after-commit action failed", exc)

    def rollback(self, exc: BaseException | None = None) -> None:
        self.after = []
        if self._cm is not None:
            cm, self._cm, self.conn = self._cm, None, None
            error = exc or RuntimeError("request rolled back")
            with contextlib.suppress(Exception):  # the original failure is what the caller reports
                cm.__exit__(type(error), error, None)
