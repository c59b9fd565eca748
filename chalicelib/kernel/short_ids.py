"""Ids people type: a full UUID, or a unique prefix of one (what Telegram and the CLI show)."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from chalicelib.kernel.errors import NotFound

MIN_PREFIX = 6


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
