"""`/api/keys`: create (the key is in this one answer only), list and revoke API keys. Admin keys only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

from chalice import Response
from chalice.app import Request
from pydantic import Field

from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body, parse_query

if TYPE_CHECKING:
    from chalicelib.auth.services.key_admin import KeyAdmin

class NamespaceLookup(Protocol):
    def get(self, name: str) -> object:
        """The namespace (NotFound when there is none: a key naming one that does not exist is a 404)."""
        ...


class Uses:
    key_admin: KeyAdmin
    namespaces: NamespaceLookup


bp = ApiBlueprint(__name__, Uses)


def refuse_replay(request: Request) -> None:
    """A stored idempotent reply would keep a secret in the database: these answers are never replayed."""
    if request.headers.get("idempotency-key") is not None:
        raise InvalidInput("Idempotency-Key: not accepted here (the answer holds a secret shown once)",
                           field="Idempotency-Key")


class NewKeyBody(WireModel):
    name: str = Field(min_length=1, max_length=64)
    kind: Literal["admin", "machine", "client"]
    machine_id: str | None = Field(default=None, min_length=1, max_length=40)
    projects: list[str] | None = Field(default=None, min_length=1, max_length=100)
    namespaces: list[str] | None = Field(default=None, min_length=1, max_length=20)
    read_only: bool = False


class KeysQuery(WireModel):
    include_revoked: bool = False


@bp.route("/api/keys", methods=["POST"])
def create_key() -> Response:
    """Create a key; the answer's `key` is shown this once and never stored."""
    from chalicelib.auth.domain.api_keys import KeyKind, KeySpec

    request = bp.current_request
    refuse_replay(request)
    b = parse_body(request, NewKeyBody)
    projects = tuple(p.strip() for p in b.projects) if b.projects is not None else None
    if projects is not None and not all(projects):
        raise InvalidInput("projects: a project id is not blank", field="projects")
    namespaces = tuple(dict.fromkeys(b.namespaces)) if b.namespaces is not None else None
    for name in namespaces or ():
        bp.services.namespaces.get(name)  # a namespace that does not exist is a 404, not a dead key
    record, secret = bp.services.key_admin.create(
        KeySpec(b.name, KeyKind(b.kind), b.machine_id, projects, b.read_only, namespaces))
    return ok({**record.to_json(), "key": secret}, status=201)


@bp.route("/api/keys", methods=["GET"])
def list_keys() -> Response:
    """The keys (never the keys themselves: their first characters)."""
    q = parse_query(bp.current_request, KeysQuery)
    keys = bp.services.key_admin.listing(include_revoked=q.include_revoked)
    return ok({"keys": [k.to_json() for k in keys]})


@bp.route("/api/keys/{name}", methods=["DELETE"])
def revoke_key(name: str) -> Response:
    """Revoke the live key `name`: refused by every API process within a minute."""
    return ok(bp.services.key_admin.revoke(name).to_json())
