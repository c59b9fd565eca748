"""How a capability's wiring declares its services: each built on first use, once per container."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container

T = TypeVar("T")


def provide(build: Callable[[Container], T]) -> T:
    """A container attribute that `build(container)` makes on first use and keeps (a test may set it
    before). Declared `name: Type = provide(...)`, it types as the service it holds, as a dataclass
    `field()` does: what each attribute holds is known without reading another's builder."""
    return cached_property(build)  # type: ignore[return-value]  # a descriptor standing for a T


class ImportedOnUse:
    """A module imported on its first attribute use: a Lambda cold start imports what its requests build."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)
