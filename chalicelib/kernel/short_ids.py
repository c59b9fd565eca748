"""Ids people type: a full UUID, or a unique prefix of one (what Telegram and the CLI show)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from chalicelib.kernel.errors import NotFound, or_not_found

MIN_PREFIX = 6
R = TypeVar("R", covariant=True)


def resolve_short_id(ref: str, ids_with_prefix: Callable[[str], list[str]], noun: str) -> str:
    """The full id `ref` names: itself if it is a UUID, else the one id starting with it.

    A prefix shorter than MIN_PREFIX, one that is not hexadecimal, or one that matches none or
    several ids is a NotFound naming the `noun` ("task", "agent run").
    """
    ref = ref.strip().lower()
    try:
        return str(uuid.UUID(ref))
    except ValueError:
        pass
    if len(ref) < MIN_PREFIX or not all(c in "0123456789abcdef-" for c in ref):
        raise NotFound(f"no {noun} {ref!r}")
    ids = ids_with_prefix(ref)
    if len(ids) != 1:
        raise NotFound(f"no {noun} {ref!r}" if not ids else f"{noun} prefix {ref!r} is ambiguous")
    return ids[0]


class ShortIdRecords(Protocol[R]):
    """A repository whose records people name by a full id or a prefix of one."""

    def ids_with_prefix(self, prefix: str, /) -> list[str]: ...

    def get(self, record_id: str, /) -> R | None: ...


class ShortIdLookup(Generic[R]):
    """A service's records by the ids people type: `records` picks the repository from a unit of work."""

    def __init__(self, units: Callable[[], Any], records: Callable[[Any], ShortIdRecords[R]],
                 noun: str) -> None:
        self._units, self._records, self._noun = units, records, noun

    def resolve(self, ref: str) -> str:
        """The full id `ref` names (see `resolve_short_id`)."""
        with self._units() as uow:
            return resolve_short_id(ref, self._records(uow).ids_with_prefix, self._noun)

    def get(self, ref: str) -> R:
        """The record `ref` names; NotFound if there is none."""
        record_id = self.resolve(ref)
        with self._units() as uow:
            record = self._records(uow).get(record_id)
        return or_not_found(record, f"no {self._noun} {ref!r}")
