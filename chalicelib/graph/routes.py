"""The graph API: context for a prompt, entities and their profiles, supersede and edges by hand,
text to learn from, contradictions and their resolution, pipeline traces."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from uuid import UUID

from chalice import Response

from chalicelib.auth.request_principal import request_writer
from chalicelib.graph.schemas import (
    ContextQuery,
    ContradictionsQuery,
    EdgeIn,
    EntitiesQuery,
    IngestIn,
    ProjectQuery,
    ResolveIn,
    SupersedeIn,
)
from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound
from chalicelib.kernel.http import ApiBlueprint, ok, parse_body, parse_query
from chalicelib.memory.domain.provenance import graph_source

if TYPE_CHECKING:
    from chalicelib.graph.services.graph_admin import GraphAdmin
    from chalicelib.graph.services.graph_retrieve import GraphRetrieve
    from chalicelib.graph.services.graph_store import GraphStore


class Uses:
    graph_admin: GraphAdmin
    graph_retrieve: GraphRetrieve
    graph_store: GraphStore


bp = ApiBlueprint(__name__, Uses)


@contextmanager
def _translated() -> Iterator[None]:
    """The graph's own errors as HTTP answers: 400 bad input, 404 unknown ids, 409 refused supersedes."""
    from chalicelib.graph.domain.graph_model import GraphInputError
    from chalicelib.graph.services.graph_admin import ContradictionClosed
    from chalicelib.graph.services.ports import NodeNotFound, SupersedeRefused

    try:
        yield
    except NodeNotFound as exc:
        raise NotFound(str(exc)) from None
    except (SupersedeRefused, ContradictionClosed) as exc:
        raise Conflict(str(exc)) from None
    except (GraphInputError, ValueError) as exc:
        raise InvalidInput(str(exc)) from None


def _uuid(raw: str, field: str) -> str:
    try:
        return str(UUID(raw))
    except ValueError:
        raise InvalidInput(f"{field}: must be a UUID", field=field) from None


@bp.route("/api/graph/context", methods=["GET"])
def context() -> Response:
    q = parse_query(bp.current_request, ContextQuery)
    retrieve = bp.services.graph_retrieve
    found = retrieve.deep(q.project, q.query) if q.deep else retrieve.fast(q.project, q.query)
    return ok(found.as_json())


@bp.route("/api/graph/entities", methods=["GET"])
def entities() -> Response:
    q = parse_query(bp.current_request, EntitiesQuery)
    found = bp.services.graph_admin.entities(q.project, q.limit, q.prefix)
    return ok({"entities": [e.as_json() for e in found]})


@bp.route("/api/graph/entities/{node_id}", methods=["GET"])
def entity(node_id: str) -> Response:
    q = parse_query(bp.current_request, ProjectQuery)
    with _translated():
        return ok(bp.services.graph_admin.profile(_uuid(node_id, "id"), q.project))


@bp.route("/api/graph/supersede", methods=["POST"])
def supersede() -> Response:
    body = parse_body(bp.current_request, SupersedeIn)
    with _translated():
        done = bp.services.graph_admin.supersede(
            body.project, str(body.old_id), body.new_content, str(body.new_id) if body.new_id else None,
            trusted=request_writer() == "person",
        )
    return ok(done, status=201)


@bp.route("/api/graph/edges", methods=["POST"])
def edges() -> Response:
    body = parse_body(bp.current_request, EdgeIn)
    with _translated():
        done = bp.services.graph_admin.link(
            body.project, str(body.source_id), str(body.target_id), body.type
        )
    return ok(done, status=201)


@bp.route("/api/graph/ingest", methods=["POST"])
def ingest() -> Response:
    body = parse_body(bp.current_request, IngestIn)
    origin = {"session_id": body.session_id} if body.session_id else None
    source = graph_source(body.source, request_writer(), body.text)  # a key's text: an agent's
    key = bp.services.graph_store.submit(body.project, body.text, source, origin)
    return ok({"queued": True, "key": key}, status=202)


@bp.route("/api/graph/contradictions", methods=["GET"])
def contradictions() -> Response:
    q = parse_query(bp.current_request, ContradictionsQuery)
    return ok({"contradictions": bp.services.graph_admin.contradictions(q.project, q.status, q.limit)})


@bp.route("/api/graph/contradictions/{contradiction_id}/resolve", methods=["POST"])
def resolve(contradiction_id: str) -> Response:
    ident = _uuid(contradiction_id, "id")
    body = parse_body(bp.current_request, ResolveIn)
    with _translated():
        return ok(bp.services.graph_admin.resolve(ident, body.resolution))


@bp.route("/api/graph/traces/{trace_id}", methods=["GET"])
def trace(trace_id: str) -> Response:
    with _translated():
        return ok(bp.services.graph_admin.trace(_uuid(trace_id, "id")))
