"""Sign in and out of the console: an admin API key (or a one-time link) opens a session.

A session is a random token in an HttpOnly cookie, stored only as its SHA-256, with its own
CSRF token and an expiry. The key itself is checked once, at sign-in, and never kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from chalicelib.console.domain.cookies import (
    LINK_MINUTES,
    SESSION_HOURS,
    ConsoleSession,
    new_token,
    token_hash,
)
from chalicelib.console.services.ports import AdminKeyCheck, ConsoleUnits
from chalicelib.kernel.errors import InvalidInput


@dataclass(frozen=True)
class Opened:
    token: str  # the cookie's value
    session: ConsoleSession


class ConsoleAuth:
    def __init__(
        self,
        units: ConsoleUnits,
        admin_key: AdminKeyCheck,
        *,
        session_hours: float = SESSION_HOURS,
        link_minutes: float = LINK_MINUTES,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._units = units
        self._admin_key = admin_key
        self._session = timedelta(hours=session_hours)
        self._link = timedelta(minutes=link_minutes)
        self._clock = clock

    def sign_in(self, key: str) -> Opened:
        name = self._admin_key(key.strip()) if key.strip() else None
        if name is None:
            raise InvalidInput("that is not a live admin API key", field="key")
        return self._open(name)

    def redeem_link(self, token: str) -> Opened:
        with self._units() as uow:
            creator = uow.console.spend_link(token_hash(token), self._clock()) if token else None
            uow.commit()
        if creator is None:
            raise InvalidInput(
                "this sign-in link is unknown, spent or expired: run `itachi console` again", field="link"
            )
        return self._open(f"{creator} (link)")

    def issue_link(self, created_by: str) -> tuple[str, datetime]:
        token, expires = new_token(), self._clock() + self._link
        with self._units() as uow:
            uow.console.add_link(token_hash(token), created_by, expires)
            uow.commit()
        return token, expires

    def session(self, token: str | None) -> ConsoleSession | None:
        if not token:
            return None
        with self._units() as uow:
            return uow.console.live(token_hash(token), self._clock())

    def sign_out(self, token: str | None) -> None:
        if token:
            with self._units() as uow:
                uow.console.end(token_hash(token), self._clock())
                uow.commit()

    def _open(self, name: str) -> Opened:
        token, session = new_token(), ConsoleSession(new_token(), name, self._clock() + self._session)
        with self._units() as uow:
            uow.console.purge(self._clock())  # sign-ins are rare: each clears what expired a day ago
            uow.console.open(token_hash(token), session.csrf_token, name, session.expires_at)
            uow.commit()
        return Opened(token, session)
