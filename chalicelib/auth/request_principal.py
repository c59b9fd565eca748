"""The principal of the request being served (set by the app's guard, read by a few routes)."""

from __future__ import annotations

from contextvars import ContextVar

from chalicelib.auth.domain.api_keys import DEPLOYMENT_ADMIN, KeyKind, Principal
from chalicelib.kernel.errors import Forbidden

_current: ContextVar[Principal] = ContextVar("itachi_principal", default=DEPLOYMENT_ADMIN)


def current_principal() -> Principal:
    """Who the current request acts as (the deployment's admin outside a request: the bot, jobs)."""
    return _current.get()


def set_principal(principal: Principal) -> object:
    return _current.set(principal)


def reset_principal(token: object) -> None:
    _current.reset(token)  # type: ignore[arg-type]


def require_machine(machine_id: str | None) -> None:
    """Refuse (403) a machine key acting on work that belongs to another machine."""
    p = current_principal()
    if p.kind is KeyKind.MACHINE and machine_id != p.machine_id:
        raise Forbidden(f"the key {p.name!r} acts for machine {p.machine_id!r} only")


def require_vouch(*sources: str) -> None:
    """Refuse (403) a key that may not store text as the user's or the assistant's words."""
    from chalicelib.auth.domain.vouching import vouch_refusal

    for source in sorted(set(sources)):
        refused = vouch_refusal(current_principal(), source)
        if refused:
            raise Forbidden(refused)
