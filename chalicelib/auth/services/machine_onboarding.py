"""Invite a machine (a one-time, expiring token) and let it join (spend the token, get a machine key).

Spending the token and storing the key happen in one transaction: two joins racing with one token
give one key; a used or expired token is refused without saying which.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from chalicelib.auth.domain.api_keys import ApiKey, KeyKind, KeySpec, key_hash, key_prefix, new_key
from chalicelib.auth.domain.machine_invites import (
    DEFAULT_TTL_MINUTES,
    MAX_TTL_MINUTES,
    REFUSED,
    Invite,
    Joined,
    checked_machine_id,
    new_invite_token,
)
from chalicelib.auth.services.ports import InvitesUnitOfWorkFactory
from chalicelib.kernel.errors import Forbidden, InvalidInput


class MachineOnboarding:
    def __init__(self, uow: InvitesUnitOfWorkFactory,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._uow = uow
        self._clock = clock

    def invite(self, created_by: str, machine_id: str | None = None,
               ttl_minutes: int = DEFAULT_TTL_MINUTES) -> tuple[Invite, str]:
        """A new invite and its token (shown once; only its hash is stored)."""
        if not 1 <= ttl_minutes <= MAX_TTL_MINUTES:
            raise InvalidInput(f"ttl_minutes: 1 to {MAX_TTL_MINUTES}", field="ttl_minutes")
        invite = Invite(str(uuid.uuid4()), checked_machine_id(machine_id) if machine_id else None, created_by,
                        self._clock() + timedelta(minutes=ttl_minutes))
        token = new_invite_token()
        with self._uow() as uow:
            uow.invites.add(invite, key_hash(token))
            uow.commit()
        return invite, token

    def join(self, token: str, machine_id: str | None) -> Joined:
        """Spend `token` and issue the machine key. Forbidden if the token is unknown, used or expired.

        The machine is the invite's when it names one (the inviter chose), else `machine_id`."""
        with self._uow() as uow:
            invite = uow.invites.spend(key_hash(token), self._clock())
            if invite is None:
                raise Forbidden(REFUSED)
            machine = invite.machine_id or (checked_machine_id(machine_id) if machine_id else None)
            if machine is None:
                raise InvalidInput("machine_id: this invite names no machine, so the joining one must",
                                   field="machine_id")
            secret = new_key()
            name = f"{machine}-joined-{key_prefix(secret)[4:10]}"
            key = uow.keys.add(ApiKey(str(uuid.uuid4()), KeySpec(name, KeyKind.MACHINE, machine),
                                      key_prefix(secret)), key_hash(secret))
            uow.invites.mark_used(invite.id, machine, key.id)
            uow.commit()
        return Joined(machine, name, secret)
