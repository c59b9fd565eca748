"""API keys and the principal a request acts as.

A key is `itk_` followed by 43 URL-safe characters (256 random bits). Only its SHA-256 is kept;
the first 12 characters (`itk_` and 8 more) are kept too, to recognise a key in a list.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from chalicelib.kernel.errors import InvalidInput

KEY_MARK = "itk_"
PREFIX_LENGTH = 12
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,63}$")
MACHINE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")  # a queue name's letters


class KeyKind(StrEnum):
    ADMIN = "admin"  # every route
    MACHINE = "machine"  # one machine's agent routes, plus the client routes (its hooks)
    CLIENT = "client"  # hooks and MCP clients: memory, learning, sessions, tasks of its projects


@dataclass(frozen=True)
class KeySpec:
    """What a new key may do (validated on construction)."""

    name: str
    kind: KeyKind
    machine_id: str | None = None
    projects: tuple[str, ...] | None = None  # None: every project
    read_only: bool = False
    namespaces: tuple[str, ...] | None = None  # these namespaces' members and scopes (with `projects`)

    def __post_init__(self) -> None:
        if not NAME_PATTERN.match(self.name):
            raise InvalidInput("name: 1-64 letters, digits or _.@:- (starting with a letter or digit)",
                               field="name")
        if (self.kind is KeyKind.MACHINE) != (self.machine_id is not None):
            raise InvalidInput("machine_id: a machine key names exactly one machine, other keys none",
                               field="machine_id")
        if self.machine_id is not None and not MACHINE_PATTERN.match(self.machine_id):
            raise InvalidInput("machine_id: 1-40 letters, digits, _ or - (starting with a letter or digit)",
                               field="machine_id")
        if self.kind is KeyKind.ADMIN and (self.projects is not None or self.namespaces is not None
                                           or self.read_only):
            raise InvalidInput("an admin key is never limited: no projects or namespaces, not read-only",
                               field="kind")
        if self.projects is not None and not self.projects:
            raise InvalidInput("projects: name at least one project, or leave it out for every project",
                               field="projects")
        if self.namespaces is not None and not self.namespaces:
            raise InvalidInput("namespaces: name at least one namespace, or leave it out", field="namespaces")


@dataclass(frozen=True)
class ApiKey:
    """A stored key: everything but the key itself."""

    id: str
    spec: KeySpec
    prefix: str
    created_at: datetime | None = None
    revoked_at: datetime | None = None

    def to_json(self) -> dict[str, object]:
        s = self.spec
        return {"id": self.id, "name": s.name, "kind": s.kind.value, "machine_id": s.machine_id,
                "projects": list(s.projects) if s.projects is not None else None,
                "namespaces": list(s.namespaces) if s.namespaces is not None else None,
                "read_only": s.read_only, "prefix": self.prefix,
                "created_at": self.created_at.isoformat() if self.created_at else None,
                "revoked_at": self.revoked_at.isoformat() if self.revoked_at else None}


@dataclass(frozen=True)
class Principal:
    """Who a request acts as: a stored key, or the deployment's own admin key (`key_id` None)."""

    name: str
    kind: KeyKind
    machine_id: str | None = None
    projects: frozenset[str] | None = None
    read_only: bool = False
    key_id: str | None = None
    namespaces: frozenset[str] | None = None  # the namespaces it is limited to (in `projects` as well)

    @classmethod
    def of(cls, key: ApiKey, namespace_projects: frozenset[str] = frozenset()) -> Principal:
        """The principal of `key`; `namespace_projects` are what its namespaces hold now (their
        member projects and their own scopes), which a key limited to namespaces may see."""
        s = key.spec
        projects = frozenset(s.projects) if s.projects is not None else None
        if s.namespaces is not None:
            projects = (projects or frozenset()) | namespace_projects
        return cls(s.name, s.kind, s.machine_id, projects, s.read_only, key.id,
                   frozenset(s.namespaces) if s.namespaces is not None else None)

    @property
    def is_admin(self) -> bool:
        return self.kind is KeyKind.ADMIN

    def may_see(self, project: str | None) -> bool:
        """True if this principal may read or write `project` (None: a request naming none)."""
        return self.projects is None or (project is not None and project in self.projects)


DEPLOYMENT_ADMIN = Principal("deployment", KeyKind.ADMIN)


def new_key() -> str:
    """A fresh key (shown once, never stored)."""
    return KEY_MARK + secrets.token_urlsafe(32)


def key_hash(key: str) -> bytes:
    """The stored form of a key: its SHA-256 digest."""
    return hashlib.sha256(key.encode("utf-8", errors="surrogatepass")).digest()


def key_prefix(key: str) -> str:
    return key[:PREFIX_LENGTH]
