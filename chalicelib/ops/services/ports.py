"""What the operations checks need from the outside world, stated narrowly."""

from __future__ import annotations

from typing import Protocol


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
