"""What the folder walk and /continue share: a listing is asked of a machine's agent on its queue,
and only the machine asked may answer it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from chalicelib.contracts.machine_messages import MachineMessage
from chalicelib.kernel.errors import Conflict, Unavailable, or_not_found

SendToMachine = Callable[[str, dict[str, Any]], None]


class _AskedOfMachine(Protocol):
    @property
    def machine(self) -> str: ...


Asked = TypeVar("Asked", bound=_AskedOfMachine)


def ask_agent(send: SendToMachine, machine: str, message: MachineMessage) -> None:
    """Put `message` on `machine`'s queue; Unavailable when its agent cannot be reached."""
    try:
        send(machine, message.to_body())
    except Exception as exc:  # the user sees it and can try again
        raise Unavailable(f"cannot reach {machine}'s agent: {exc}") from exc


def answered_by(asked: Asked | None, machine_id: str, listing_id: str, kind: str) -> Asked:
    """The listing `machine_id`'s agent answers; NotFound when unknown, Conflict when it was asked of
    another machine."""
    asked = or_not_found(asked, f"no {kind} listing {listing_id!r}")
    if asked.machine != machine_id:
        raise Conflict(f"listing {listing_id} was asked of {asked.machine}, not {machine_id}")
    return asked
