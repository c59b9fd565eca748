"""The principal of the request being served (set by the app's guard, read by a few routes).

Outside a guarded request there is nobody: `current_principal()` there is refused (401), never
answered with the deployment's admin. The bot and scheduled jobs act for the deployment through
services that need no principal (`own_machine()` is None for them: no machine binding).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Literal

from chalicelib.auth.domain.api_keys import KeyKind, Principal
from chalicelib.kernel.errors import Forbidden, Unauthorized

_current: ContextVar[Principal | None] = ContextVar("itachi_principal", default=None)


def current_principal() -> Principal:
    """Who the current request acts as; refused (401) when no key admitted one."""
    principal = _current.get()
    if principal is None:
        raise Unauthorized("this needs an API key (Authorization: Bearer <key>)")
    return principal


def principal_or_none() -> Principal | None:
    """The current request's principal, None on an open route or outside a request."""
    return _current.get()


def set_principal(principal: Principal) -> object:
    return _current.set(principal)


def reset_principal(token: object) -> None:
    _current.reset(token)  # type: ignore[arg-type]


def own_machine() -> str | None:
    """The machine the current key is bound to (None: any). A machine key's new work goes there and
    its lists show that machine's work only; the access policy refuses it any other machine's.
    Work no key asked for (the bot's, a scheduled job's) is bound to no machine: it narrows
    nothing, and grants nothing either."""
    p = principal_or_none()
    return p.machine_id if p is not None and p.kind is KeyKind.MACHINE else None


def require_vouch(*sources: str) -> None:
    """Refuse (403) a key that may not store text as the user's or the assistant's words."""
    from chalicelib.auth.domain.vouching import vouch_refusal

    for source in sorted(set(sources)):
        refused = vouch_refusal(current_principal(), source)
        if refused:
            raise Forbidden(refused)


def request_writer() -> Literal["person", "key"]:
    """Who wrote the text of the current request: a person (an admin key) or a key any process on
    a machine can read (`memory.domain.provenance`). Never what the request says about itself."""
    from chalicelib.auth.domain.vouching import speaks_for_person

    return "person" if speaks_for_person(current_principal()) else "key"
