"""Namespaces: named sets of projects whose members share memories, rules and keys' scopes."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.namespaces.services.namespaces import Namespaces


class NamespaceWiring(CoreWiring):
    @cached_property
    def namespaces(self) -> Namespaces:
        from chalicelib.namespaces.adapters.namespace_repository import namespace_units
        from chalicelib.namespaces.services.namespaces import Namespaces

        return Namespaces(namespace_units(self.db))
