"""Invite a machine (a one-time, expiring token) and let it join (spend the token, get a machine key).

Spending the token and storing the key happen in one transaction: two joins racing with one token
give one key, and joins for one machine wait on its keys' lock, so a machine that has a live key is
never given another; a used or expired token is refused without saying which.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from chalicelib.auth.domain.api_keys import ApiKey, KeyKind, KeySpec, key_hash, key_prefix, new_key
from chalicelib.auth.domain.machine_invites import (
    DEFAULT_TTL_MINUTES,
    MAX_TTL_MINUTES,
    NAME_THE_MACHINE,
    REFUSED,
    UNNAMED,
    Invite,
    Joined,
    checked_machine_id,
    new_invite_token,
    other_machine,
    taken,
)
from chalicelib.auth.services.ports import InvitesUnitOfWork, InvitesUnitOfWorkFactory
from chalicelib.kernel.errors import Conflict, Forbidden, InvalidInput


class MachineOnboarding:
    def __init__(self, uow: InvitesUnitOfWorkFactory,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._uow = uow
        self._clock = clock

    def invite(self, created_by: str, machine_id: str | None,
               ttl_minutes: int = DEFAULT_TTL_MINUTES) -> tuple[Invite, str]:
        """A new invite for machine_id and its token (shown once; only its hash is stored).

        InvalidInput without a machine id, Conflict while that machine has a live key."""
        if not 1 <= ttl_minutes <= MAX_TTL_MINUTES:
            raise InvalidInput(f"ttl_minutes: 1 to {MAX_TTL_MINUTES}", field="ttl_minutes")
        if not machine_id:
            raise InvalidInput(NAME_THE_MACHINE, field="machine_id")
        machine = checked_machine_id(machine_id)
        expires = self._clock() + timedelta(minutes=ttl_minutes)
        invite = Invite(str(uuid.uuid4()), machine, created_by, expires)
        token = new_invite_token()
        with self._uow() as uow:
            _refuse_taken(uow, machine)
            uow.invites.add(invite, key_hash(token))
            uow.commit()
        return invite, token

    def join(self, token: str, machine_id: str | None) -> Joined:
        """Spend `token` and issue a key for the invite's machine.

        Forbidden if the token is unknown, used or expired, or `machine_id` is not the invite's;
        Conflict while the machine has a live key. A refused join leaves the token unspent."""
        with self._uow() as uow:
            invite = uow.invites.spend(key_hash(token), self._clock())
            if invite is None:
                raise Forbidden(REFUSED)
            machine = invite.machine_id
            if machine is None:
                raise Forbidden(UNNAMED)
            if machine_id and machine_id != machine:
                raise Forbidden(other_machine(machine, machine_id))
            _refuse_taken(uow, machine)
            secret = new_key()
            name = f"{machine}-joined-{key_prefix(secret)[4:10]}"
            key = uow.keys.add(ApiKey(str(uuid.uuid4()), KeySpec(name, KeyKind.MACHINE, machine),
                                      key_prefix(secret)), key_hash(secret))
            uow.invites.mark_used(invite.id, machine, key.id)
            uow.commit()
        return Joined(machine, name, secret)


def _refuse_taken(uow: InvitesUnitOfWork, machine_id: str) -> None:
    live = uow.keys.lock_machine(machine_id)
    if live:
        raise Conflict(taken(machine_id, [k.spec.name for k in live]), field="machine_id")
