"""/api/approvals: a hook asks whether a tool call may run; it polls the answer a person gives in
Telegram (Approve / Deny / Allow for this session). No answer in time means deny."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

from chalice import Response
from pydantic import Field

from chalicelib.approvals.domain.approvals import Approval
from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body
from chalicelib.kernel.wire import INT64_MAX

if TYPE_CHECKING:
    from chalicelib.approvals.services.tool_approvals import ToolApprovals


class Uses:
    tool_approvals: ToolApprovals


bp = ApiBlueprint(__name__, Uses)


class ApprovalIn(WireModel):
    session_id: str = Field(min_length=1, max_length=200)
    project: str = Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")
    tool: str = Field(min_length=1, max_length=100)
    summary: str = Field(default="", max_length=3_500)  # a plan is longer than a command
    topic_id: int | None = Field(default=None, ge=1, le=INT64_MAX)
    timeout_s: int = Field(default=120, ge=1, le=600)


def approval_json(approval: Approval) -> dict[str, Any]:
    body = asdict(approval)
    for key, value in body.items():
        if isinstance(value, datetime):
            body[key] = value.isoformat()
    body["decision"] = approval.decision
    return body


@bp.route("/api/approvals", methods=["POST"])
def request_approval() -> Response:
    body = parse_body(bp.current_request, ApprovalIn)
    approval = bp.services.tool_approvals.request(body.session_id, body.project, body.tool, body.summary,
                                                      topic_id=body.topic_id, timeout_s=body.timeout_s)
    return ok(approval_json(approval), status=201)


@bp.route("/api/approvals/{approval_id}", methods=["GET"])
def approval_status(approval_id: str) -> Response:
    from chalicelib.memory.routes import parse_memory_id  # the same UUID check and message

    return ok(approval_json(bp.services.tool_approvals.status(parse_memory_id(approval_id))))
