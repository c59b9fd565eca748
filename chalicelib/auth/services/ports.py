"""What the key services need: repositories of keys and machine invites in a unit of work."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from chalicelib.auth.domain.api_keys import ApiKey
from chalicelib.auth.domain.machine_invites import Invite
from chalicelib.kernel.unit_of_work import UnitOfWork


class KeyRepository(Protocol):
    def add(self, key: ApiKey, key_hash: bytes) -> ApiKey:
        """Store a key by its hash; raise Conflict if a live key has its name."""
        ...

    def live_by_hash(self, key_hash: bytes) -> ApiKey | None:
        """The unrevoked key with this hash (one index lookup on the hash)."""
        ...

    def listing(self, *, include_revoked: bool) -> list[ApiKey]: ...

    def lock_machine(self, machine_id: str) -> list[ApiKey]:
        """The machine's live keys, its keys locked until the transaction ends (joins for it wait)."""
        ...

    def revoke(self, name: str) -> ApiKey | None:
        """Revoke the live key called `name`; None if there is none."""
        ...


class KeysUnitOfWork(UnitOfWork, Protocol):
    @property
    def keys(self) -> KeyRepository: ...


KeysUnitOfWorkFactory = Callable[[], KeysUnitOfWork]


class InviteRepository(Protocol):
    def add(self, invite: Invite, token_hash: bytes) -> None: ...

    def spend(self, token_hash: bytes, now: datetime) -> Invite | None:
        """Lock the unused, unexpired invite with this hash (None if there is none)."""
        ...

    def mark_used(self, invite_id: str, machine_id: str, key_id: str) -> None: ...


class InvitesUnitOfWork(KeysUnitOfWork, Protocol):
    @property
    def invites(self) -> InviteRepository: ...


InvitesUnitOfWorkFactory = Callable[[], InvitesUnitOfWork]
