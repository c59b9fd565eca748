"""Namespaces: named sets of projects whose members share memories, rules and keys' scopes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.wiring.kits import namespaces as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.namespaces")


class NamespaceWiring(CoreWiring):
    namespaces: kit.Namespaces = provide(lambda c: kit.Namespaces(kit.namespace_units(c.db)))
