"""In-memory console sessions and links for unit tests (the Postgres one: adapters/console_repository.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

from chalicelib.console.domain.cookies import ConsoleSession
from chalicelib.kernel.unit_of_work import InMemoryUnitOfWork


class InMemoryConsoleRepository:
    def __init__(self) -> None:
        self.sessions: dict[bytes, tuple[ConsoleSession, datetime | None]] = {}
        self.links: dict[bytes, tuple[str, bytes, datetime, datetime | None]] = {}

    def open(self, token_hash: bytes, session: ConsoleSession) -> None:
        self.sessions[token_hash] = (session, None)

    def live(self, token_hash: bytes, now: datetime) -> ConsoleSession | None:
        session, ended = self.sessions.get(token_hash, (None, None))
        return session if session is not None and ended is None and session.expires_at > now else None

    def end(self, token_hash: bytes, now: datetime) -> None:
        if token_hash in self.sessions:
            self.sessions[token_hash] = (self.sessions[token_hash][0], now)

    def add_link(self, token_hash: bytes, created_by: str, key_hash: bytes, expires_at: datetime) -> None:
        self.links[token_hash] = (created_by, key_hash, expires_at, None)

    def spend_link(self, token_hash: bytes, now: datetime) -> tuple[str, bytes | None] | None:
        creator, key, expires, used = self.links.get(token_hash, ("", b"", now, now))
        if used is not None or expires <= now:
            return None
        self.links[token_hash] = (creator, key, expires, now)
        return creator, key

    def purge(self, now: datetime) -> int:
        cutoff = now - timedelta(days=1)
        gone = [h for h, (s, _) in self.sessions.items() if s.expires_at < cutoff]
        for h in gone:
            del self.sessions[h]
        return len(gone)


class InMemoryConsoleUnitOfWork(InMemoryUnitOfWork):
    def __init__(self, repo: InMemoryConsoleRepository) -> None:
        super().__init__()
        self.console = repo
