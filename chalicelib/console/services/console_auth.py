"""Sign in and out of the console: an admin API key (or a one-time link) opens a session.

A session is a random token in an HttpOnly cookie, stored only as its SHA-256, with its own
CSRF token and an expiry. The key itself is checked at sign-in and never kept; its SHA-256 is,
and a session is live only while that key is: revoking the key (or rotating the deployment's
key out) ends the sessions it opened, and those its one-time links opened, on their next request.
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
from chalicelib.console.services.ports import AdminKeyCheck, ConsoleUnits, KeyLive
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
        key_live: KeyLive,
        *,
        session_hours: float = SESSION_HOURS,
        link_minutes: float = LINK_MINUTES,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._units = units
        self._admin_key = admin_key
        self._key_live = key_live
        self._session = timedelta(hours=session_hours)
        self._link = timedelta(minutes=link_minutes)
        self._clock = clock

    def sign_in(self, key: str) -> Opened:
        name = self._admin_key(key.strip()) if key.strip() else None
        if name is None:
            raise InvalidInput("that is not a live admin API key", field="key")
        return self._open(name, token_hash(key.strip()))

    def redeem_link(self, token: str) -> Opened:
        with self._units() as uow:
            spent = uow.console.spend_link(token_hash(token), self._clock()) if token else None
            uow.commit()
        if spent is None or spent[1] is None or not self._key_live(spent[1]):
            raise InvalidInput(
                "this sign-in link is unknown, spent or expired: run `itachi console` again", field="link"
            )
        return self._open(f"{spent[0]} (link)", spent[1])

    def issue_link(self, created_by: str, key_hash: bytes) -> tuple[str, datetime]:
        """A one-time link, bound to the key (its SHA-256) of the admin who asked for it."""
        token, expires = new_token(), self._clock() + self._link
        with self._units() as uow:
            uow.console.add_link(token_hash(token), created_by, key_hash, expires)
            uow.commit()
        return token, expires

    def session(self, token: str | None) -> ConsoleSession | None:
        if not token:
            return None
        with self._units() as uow:
            session = uow.console.live(token_hash(token), self._clock())
        if session is None or session.key_hash is None or not self._key_live(session.key_hash):
            return None
        return session

    def sign_out(self, token: str | None) -> None:
        if token:
            with self._units() as uow:
                uow.console.end(token_hash(token), self._clock())
                uow.commit()

    def _open(self, name: str, key_hash: bytes) -> Opened:
        token = new_token()
        session = ConsoleSession(new_token(), name, self._clock() + self._session, key_hash)
        with self._units() as uow:
            uow.console.purge(self._clock())  # sign-ins are rare: each clears what expired a day ago
            uow.console.open(token_hash(token), session)
            uow.commit()
        return Opened(token, session)
