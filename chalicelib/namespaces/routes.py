"""`/api/namespaces`: named sets of projects sharing memories and rules; admin keys only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response
from pydantic import Field

from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body, parse_query

if TYPE_CHECKING:
    from chalicelib.learning.services.rule_promotion import RulePromotion
    from chalicelib.namespaces.services.namespaces import Namespaces


class Uses:
    namespaces: Namespaces
    rule_promotion: RulePromotion


bp = ApiBlueprint(__name__, Uses)

ProjectId = Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")


class NewNamespaceBody(WireModel):
    name: str = Field(min_length=1, max_length=63)
    projects: list[str] = Field(default_factory=list, max_length=100)


class MembersBody(WireModel):
    projects: list[str] = Field(min_length=1, max_length=100)


class MemberQuery(WireModel):
    project: str = ProjectId


class PromoteBody(WireModel):
    rule_id: str = Field(min_length=1, max_length=100)


@bp.route("/api/namespaces", methods=["POST"])
def create_namespace() -> Response:
    body = parse_body(bp.current_request, NewNamespaceBody)
    return ok(bp.services.namespaces.create(body.name, body.projects).to_json(), status=201)


@bp.route("/api/namespaces", methods=["GET"])
def list_namespaces() -> Response:
    return ok({"namespaces": [n.to_json() for n in bp.services.namespaces.listing()]})


@bp.route("/api/namespaces/{name}", methods=["GET"])
def get_namespace(name: str) -> Response:
    return ok(bp.services.namespaces.get(name).to_json())


@bp.route("/api/namespaces/{name}/projects", methods=["POST"])
def add_projects(name: str) -> Response:
    body = parse_body(bp.current_request, MembersBody)
    return ok(bp.services.namespaces.add(name, body.projects).to_json())


@bp.route("/api/namespaces/{name}/projects", methods=["DELETE"])
def remove_project(name: str) -> Response:
    query = parse_query(bp.current_request, MemberQuery)
    return ok(bp.services.namespaces.remove(name, [query.project]).to_json())


@bp.route("/api/namespaces/{name}/rules", methods=["POST"])
def promote_rule(name: str) -> Response:
    """Move a member project's rule up to the namespace: every member reads it from then on."""
    from chalicelib.auth.request_principal import current_principal
    from chalicelib.memory.routes import parse_memory_id  # the same UUID check and message

    body = parse_body(bp.current_request, PromoteBody)
    rule_id = parse_memory_id(body.rule_id)
    return ok(bp.services.rule_promotion.promote(rule_id, name, by=current_principal().name), status=201)
