"""Namespaces: create them, change their members, and answer which scopes a project reads.

A member project reads, in order: its own memories, each of its namespaces' (`ns:<name>`, by
name), then `_global`. Membership is read on every search and rules list, so a change applies to
the next prompt; a key limited to namespaces sees their members as its key cache last read them
(`auth.services.authenticator`, 30 s).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from chalicelib.contracts.memory_scopes import namespace_scope
from chalicelib.kernel.errors import NotFound, or_not_found
from chalicelib.kernel.unit_of_work import UnitOfWork
from chalicelib.namespaces.domain.namespace import Namespace, checked_name, checked_projects


class NamespaceStore(Protocol):
    def create(self, name: str) -> None: ...

    def add(self, name: str, projects: Sequence[str]) -> None: ...

    def remove(self, name: str, projects: Sequence[str]) -> int: ...

    def get(self, name: str) -> Namespace | None: ...

    def listing(self) -> list[Namespace]: ...

    def of_project(self, project: str) -> list[str]: ...

    def members(self, names: Sequence[str]) -> list[str]: ...


class NamespaceUnit(UnitOfWork, Protocol):
    @property
    def namespaces(self) -> NamespaceStore: ...


class Namespaces:
    def __init__(self, units: Callable[[], NamespaceUnit]) -> None:
        self._unit = units

    def create(self, name: str, projects: Iterable[str] = ()) -> Namespace:
        """A new namespace with these member projects (409 if the name is taken)."""
        name = checked_name(name)
        members = checked_projects(projects) if projects else ()
        with self._unit() as uow:
            uow.namespaces.create(name)
            if members:
                uow.namespaces.add(name, members)
            created = uow.namespaces.get(name)
            uow.commit()
        assert created is not None
        return created

    def get(self, name: str) -> Namespace:
        with self._unit() as uow:
            found = uow.namespaces.get(name)
        return or_not_found(found, f"no namespace {name!r}", field="name")

    def listing(self) -> list[Namespace]:
        with self._unit() as uow:
            return uow.namespaces.listing()

    def add(self, name: str, projects: Iterable[str]) -> Namespace:
        """Add member projects (those already in it stay as they are)."""
        return self._change(name, checked_projects(projects), add=True)

    def remove(self, name: str, projects: Iterable[str]) -> Namespace:
        """Take member projects out; the namespace's memories and rules stay in its scope."""
        return self._change(name, checked_projects(projects), add=False)

    def _change(self, name: str, members: tuple[str, ...], *, add: bool) -> Namespace:
        with self._unit() as uow:
            if uow.namespaces.get(name) is None:
                raise NotFound(f"no namespace {name!r}", field="name")
            if add:
                uow.namespaces.add(name, members)
            else:
                uow.namespaces.remove(name, members)
            changed = uow.namespaces.get(name)
            uow.commit()
        assert changed is not None
        return changed

    def scopes_of(self, project: str) -> tuple[str, ...]:
        """The namespace scopes `project` reads between its own and `_global` (`ns:<name>`, by name)."""
        with self._unit() as uow:
            return tuple(namespace_scope(n) for n in uow.namespaces.of_project(project))

    def visible(self, names: Sequence[str]) -> frozenset[str]:
        """What a key limited to the namespaces `names` may see: their members and their own scopes."""
        with self._unit() as uow:
            members = uow.namespaces.members(names)
        return frozenset(members) | {namespace_scope(n) for n in names}
