"""What the operations checks need from the outside world, stated narrowly."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from chalicelib.ops.domain.retention import RetentionRun


class DatabaseProbe(Protocol):
    def ping(self) -> None:
        """Raise unless a query round-trips."""
        ...


class Queues(Protocol):
    def url(self, key: str) -> str:
        """The URL of a queue of the queue table; raise if it does not exist."""
        ...


class IdempotencyRecords(Protocol):
    def purge_older_than(self, days: int) -> int:
        """Delete the records older than `days`; return how many went."""
        ...


class RetentionRows(Protocol):
    def delete_batch(self, kind: str, older_than_days: int, limit: int) -> int:
        """Delete up to `limit` rows of `kind` older than the days, in a transaction of its own
        (committed before returning); return how many went."""
        ...

    def record_run(self, run: RetentionRun) -> None: ...

    def last_run(self) -> RetentionRun | None: ...
