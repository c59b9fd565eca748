"""Interactive agent sessions: start, input, close, follow (users); claim, events, end (agent)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from chalice import Response
from pydantic import Field

from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body, parse_query
from chalicelib.kernel.wire import Count, Int64
from chalicelib.tasks.domain.task_model import NewEvent
from chalicelib.tasks.routes.agent_bodies import EndedBody, MachineBody, SessionEventsBody, SessionSwitchBody

if TYPE_CHECKING:
    from chalicelib.tasks.services.agent_sessions import AgentSessionService


class Uses:
    agent_sessions: AgentSessionService


bp = ApiBlueprint(__name__, Uses)


class StartBody(WireModel):
    mirrors: ClassVar[str] = "SessionStartRequest"
    prompt: str = Field(min_length=1, max_length=20_000)
    project: str = Field(min_length=1, max_length=300)
    machine: str | None = Field(default=None, max_length=40)
    repo: str | None = Field(default=None, max_length=2000)
    engine: str = Field(default="claude", min_length=1, max_length=40)
    telegram_chat_id: Int64 | None = None
    telegram_topic_id: Int64 | None = None
    resume: str | None = Field(default=None, min_length=1, max_length=200)
    permission_mode: Literal["plan"] | None = None


class InputBody(WireModel):
    mirrors: ClassVar[str] = "SessionInputRequest"
    text: str = Field(min_length=1, max_length=20_000)


class ListQuery(WireModel):
    machine: str | None = Field(default=None, max_length=100)
    status: str | None = Field(default=None, max_length=40)
    limit: int = Field(default=50, ge=1, le=500)


class EventsQuery(WireModel):
    after: Count = 0
    limit: int = Field(default=200, ge=1, le=1000)


@bp.route("/api/sessions", methods=["POST"])
def start_session() -> Response:
    from chalicelib.contracts.agent_api import SessionStartRequest  # lazy: cold start

    b = parse_body(bp.current_request, StartBody)
    session = bp.services.agent_sessions.start(SessionStartRequest.from_body(b.model_dump()))
    return ok(session.to_json(), status=201)


@bp.route("/api/sessions", methods=["GET"])
def list_sessions() -> Response:
    q = parse_query(bp.current_request, ListQuery)
    sessions = bp.services.agent_sessions.list_sessions(machine=q.machine, status=q.status, limit=q.limit)
    return ok({"sessions": [s.to_json() for s in sessions]})


@bp.route("/api/sessions/{session_id}", methods=["GET"])
def get_session(session_id: str) -> Response:
    return ok(bp.services.agent_sessions.get(session_id).to_json())


@bp.route("/api/sessions/{session_id}/input", methods=["POST"])
def send_input(session_id: str) -> Response:
    b = parse_body(bp.current_request, InputBody)
    return ok({"seq": bp.services.agent_sessions.send_input(session_id, b.text)}, status=202)


@bp.route("/api/sessions/{session_id}/close", methods=["POST"])
def close_session(session_id: str) -> Response:
    return ok(bp.services.agent_sessions.close(session_id).to_json(), status=202)


@bp.route("/api/sessions/{session_id}/events", methods=["GET"])
def session_events(session_id: str) -> Response:
    q = parse_query(bp.current_request, EventsQuery)
    service = bp.services.agent_sessions
    session = service.get(session_id)
    events = service.events(session_id, after=q.after, limit=q.limit)
    return ok({"session_id": session.id, "status": session.status.value, "events": events,
               "next_after": events[-1]["seq"] if events else q.after})


class ExportQuery(WireModel):
    format: Literal["md", "json"] = "md"


@bp.route("/api/sessions/{session_id}/export", methods=["GET"])
def export_session(session_id: str) -> Response:
    from chalicelib.tasks.domain.session_export import export_json, export_markdown  # lazy: cold start

    q = parse_query(bp.current_request, ExportQuery)
    session, events = bp.services.agent_sessions.conversation(session_id)
    if q.format == "json":
        return ok(export_json(session, events))
    return Response(body=export_markdown(session, events), status_code=200, headers={
        "Content-Type": "text/markdown; charset=utf-8",
        "Content-Disposition": f'attachment; filename="session-{session.id[:8]}.md"'})


@bp.route("/api/sessions/{session_id}/claim", methods=["POST"])
def claim_session(session_id: str) -> Response:
    from chalicelib.contracts.agent_api import SessionClaim  # lazy: cold start

    b = parse_body(bp.current_request, MachineBody)
    session, inputs = bp.services.agent_sessions.claim(session_id, b.machine_id)
    return ok(SessionClaim(session.to_json(), inputs).to_body())


@bp.route("/api/sessions/{session_id}/events", methods=["POST"])
def post_session_events(session_id: str) -> Response:
    b = parse_body(bp.current_request, SessionEventsBody)
    last = bp.services.agent_sessions.record_events(
        session_id, b.machine_id, [NewEvent(e.kind, e.text, e.data) for e in b.events])
    return ok({"last_seq": last})


@bp.route("/api/sessions/{session_id}/engine-switch", methods=["POST"])
def session_engine_switch(session_id: str) -> Response:
    b = parse_body(bp.current_request, SessionSwitchBody)
    switches = bp.services.agent_sessions.switch_engine(session_id, b.machine_id, b.from_engine,
                                                            b.to_engine, b.reason)
    return ok({"engine_switches": switches, "current_engine": b.to_engine})


@bp.route("/api/sessions/{session_id}/ended", methods=["POST"])
def session_ended(session_id: str) -> Response:
    b = parse_body(bp.current_request, EndedBody)
    session = bp.services.agent_sessions.ended(session_id, b.machine_id, b.exit_code, b.error)
    return ok(session.to_json())
