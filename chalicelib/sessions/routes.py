"""Session API used by the hooks: events, edits, completion and the SessionStart briefing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from chalice import Response
from pydantic import ConfigDict, Field

from chalicelib.kernel.http import ApiBlueprint, WireModel, delivery_key, ok, parse_body, parse_query
from chalicelib.kernel.wire import CapturedJson, Count, Int64, captured
from chalicelib.memory.scope_routes import RunScopes, run_scope
from chalicelib.sessions.services.sessions import SessionEvent

if TYPE_CHECKING:
    from chalicelib.graph.services.graph_store import GraphStore
    from chalicelib.sessions.services.sessions import SessionService


class Uses:
    run_memory_scopes: RunScopes
    graph_store: GraphStore
    sessions: SessionService


bp = ApiBlueprint(__name__, Uses)

Id = Field(min_length=1, max_length=200)
Project = Field(min_length=1, max_length=300)


class _Strict(WireModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class EventIn(_Strict):
    session_id: str = Id
    project: str = Project
    event: Literal["start", "stop", "pre_compact", "compact", "tool_failure"]
    client: str = Field(default="claude", max_length=40)
    data: CapturedJson = Field(default_factory=dict)


class EditIn(_Strict):
    session_id: str = Id
    project: str = Project
    file: str = Field(min_length=1, max_length=2000)
    tool: str = Field(default="Edit", max_length=80)
    lines_added: Count = 0
    lines_removed: Count = 0
    language: str | None = Field(default=None, max_length=40)
    diff: Annotated[str, captured(500_000)] | None = None
    failed: bool = False


class Turn(_Strict):
    role: Literal["user", "assistant", "system"]
    text: Annotated[str, captured(100_000)]
    line: Int64 | None = None


class CompleteIn(_Strict):
    session_id: str = Id
    project: str = Project
    client: str = Field(default="claude", max_length=40)
    reason: str = Field(default="other", max_length=80)
    duration_ms: Annotated[Int64, Field(ge=0)] | None = None
    files_changed: list[Annotated[str, captured(4000)]] = Field(default_factory=list, max_length=2000)
    summary: Annotated[str, captured(100_000)] | None = None
    transcript: list[Turn] | None = Field(default=None, max_length=5000)


class BriefingQuery(_Strict):
    project: str = Project


@bp.route("/api/session/event", methods=["POST"])
def record_event() -> Response:
    body = parse_body(bp.current_request, EventIn)
    created = bp.services.sessions.record_event(SessionEvent(**body.model_dump()),
                                                    delivery_key(bp.current_request))
    return ok({"recorded": created}, status=201 if created else 200)


@bp.route("/api/session/edit", methods=["POST"])
def record_edit() -> Response:
    body = parse_body(bp.current_request, EditIn)
    created = bp.services.sessions.record_edit(body.model_dump(), delivery_key(bp.current_request))
    return ok({"recorded": created}, status=201 if created else 200)


@bp.route("/api/session/complete", methods=["POST"])
def complete() -> Response:
    body = parse_body(bp.current_request, CompleteIn)
    answer = bp.services.sessions.complete(body.model_dump())
    if body.summary:  # what the session established goes to the graph memory's store pipeline
        _to_graph(body.project, body.summary, body.session_id)
    return ok(answer)


def _to_graph(project: str, summary: str, session_id: str) -> None:
    from chalicelib.kernel.logging import log_failure
    from chalicelib.memory.domain.provenance import graph_source

    try:
        # The hook's capture of the assistant's reply: machine-written, so never trusted as a directive.
        source = graph_source("assistant", "pipeline", summary)
        bp.services.graph_store.submit(project, summary, source, {"session_id": session_id})
    except Exception as exc:  # the session is closed either way
        log_failure("graph: session summary not queued", exc)


@bp.route("/api/session/briefing", methods=["GET"])
def briefing() -> Response:
    query = parse_query(bp.current_request, BriefingQuery)
    briefing = bp.services.sessions.briefing(query.project)
    scope = run_scope(bp.current_request, bp.services.run_memory_scopes)  # a subagent: its scope only
    return ok(briefing if scope is None else scope.briefing(query.project, briefing))
