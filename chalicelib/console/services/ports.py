"""What the console's services need: stores of sessions and one-time links, and who a key is."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from chalicelib.console.domain.cookies import ConsoleSession
from chalicelib.kernel.unit_of_work import UnitOfWork


class ConsoleSessionRepository(Protocol):
    def open(self, token_hash: bytes, session: ConsoleSession) -> None: ...

    def live(self, token_hash: bytes, now: datetime) -> ConsoleSession | None:
        """The unexpired, not ended session with this hash."""
        ...

    def end(self, token_hash: bytes, now: datetime) -> None: ...

    def add_link(self, token_hash: bytes, created_by: str, key_hash: bytes, expires_at: datetime) -> None: ...

    def spend_link(self, token_hash: bytes, now: datetime) -> tuple[str, bytes | None] | None:
        """Mark the unused, unexpired link spent; who created it and with which key (None: no such link)."""
        ...

    def purge(self, now: datetime) -> int:
        """Drop sessions and links expired for a day; how many."""
        ...


class ConsoleUnitOfWork(UnitOfWork, Protocol):
    @property
    def console(self) -> ConsoleSessionRepository: ...


ConsoleUnits = Callable[[], ConsoleUnitOfWork]
AdminKeyCheck = Callable[[str], str | None]  # a presented key -> its name when it is an admin key
KeyLive = Callable[[bytes], bool]  # a key's SHA-256 -> whether that key is live now (never cached)
