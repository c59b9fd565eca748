"""A one-time, expiring invitation for a new machine, and what a join hands back."""

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
    machine_id: str | None
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
