"""A namespace: a named set of projects sharing memories and rules (`contracts.memory_scopes`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from chalicelib.contracts.memory_scopes import (
    GLOBAL_PROJECT,
    NAMESPACE_NAME,
    NAMESPACE_PREFIX,
    namespace_scope,
)
from chalicelib.kernel.errors import InvalidInput

MAX_PROJECTS = 100


@dataclass(frozen=True)
class Namespace:
    name: str
    projects: tuple[str, ...]
    created_at: datetime | None = None

    @property
    def scope(self) -> str:
        return namespace_scope(self.name)

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "scope": self.scope, "projects": list(self.projects),
                "created_at": self.created_at.isoformat() if self.created_at else None}


def checked_name(name: str) -> str:
    """`name` if it may name a namespace (1-63 lower-case letters, digits or _.- ), else 400."""
    if not NAMESPACE_NAME.match(name):
        raise InvalidInput("namespace name: 1-63 lower-case letters, digits or _.- (starting with a letter "
                           "or digit)", field="name")
    return name


def checked_projects(projects: Iterable[str]) -> tuple[str, ...]:
    """Distinct member project ids, in order; `_global` and namespace scopes are no members."""
    members = tuple(dict.fromkeys(p.strip() for p in projects))
    if not members or len(members) > MAX_PROJECTS:
        raise InvalidInput(f"projects: name 1-{MAX_PROJECTS} projects", field="projects")
    for project in members:
        if (not project or len(project) > 300 or any(ord(c) < 32 for c in project)
                or project == GLOBAL_PROJECT or project.startswith(NAMESPACE_PREFIX)):
            raise InvalidInput(f"projects: {project!r} is not a project id", field="projects")
    return members
