"""A one-time, expiring invitation for one named machine, and what a join hands back.

An invite is for the machine it names, and only while that machine has no live key: a join can
never take over a machine that is running (revoke its key first to re-join it)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from chalicelib.auth.domain.api_keys import MACHINE_PATTERN
from chalicelib.kernel.errors import InvalidInput

INVITE_MARK = "iti_"
DEFAULT_TTL_MINUTES = 60
MAX_TTL_MINUTES = 7 * 24 * 60
REFUSED = "this invite token is unknown, already used or expired: ask for a new one (itachi machines invite)"
NAME_THE_MACHINE = "machine_id: an invite names the machine it is for (itachi machines invite --machine ID)"
UNNAMED = "this invite names no machine: ask for a new one (itachi machines invite --machine ID)"


def other_machine(invited: str, asked: str) -> str:
    return f"this invite is for machine {invited!r}, not {asked!r}"


def taken(machine_id: str, key_names: list[str]) -> str:
    return (f"machine {machine_id!r} already has a live key ({', '.join(key_names)}): a join cannot take it "
            f"over; revoke that key first (itachi keys revoke NAME) to join it again")


def new_invite_token() -> str:
    return INVITE_MARK + secrets.token_urlsafe(32)


def checked_machine_id(machine_id: str) -> str:
    if not MACHINE_PATTERN.match(machine_id):
        raise InvalidInput("machine_id: 1-40 letters, digits, _ or - (starting with a letter or digit)",
                           field="machine_id")
    return machine_id


@dataclass(frozen=True)
class Invite:
    id: str
    machine_id: str | None  # None only on invites made before invites named their machine
    created_by: str
    expires_at: datetime

    def join_command(self, api_url: str, token: str) -> str:
        return f"itachi join {api_url.rstrip('/') or '<API URL>'} --token {token}"


@dataclass(frozen=True)
class Joined:
    """A spent invite: the machine's id and its new machine key (shown this once)."""

    machine_id: str
    key_name: str
    api_key: str
