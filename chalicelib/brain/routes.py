"""/api/brain: the brain's status, switch and settings; its proposals, approved or rejected (admin)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from chalice import Response
from pydantic import Field

from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body, parse_query

if TYPE_CHECKING:
    from chalicelib.brain.services.brain_loop import BrainLoop
    from chalicelib.brain.services.proposal_decisions import ProposalDecisions


class Uses:
    brain_decisions: ProposalDecisions
    brain_loop: BrainLoop


bp = ApiBlueprint(__name__, Uses)


class BrainChange(WireModel):
    enabled: bool | None = None
    interval: str | None = Field(default=None, max_length=10, description="seconds, or 10m / 1h")
    budget: int | None = Field(default=None, ge=0, le=10000, description="the brain's LLM calls per UTC day")
    max: int | None = Field(default=None, ge=0, le=10, description="proposals per cycle")


class ProposalsQuery(WireModel):
    status: Literal["pending", "approving", "approved", "rejected", "expired", "failed"] | None = None
    limit: int = Field(default=20, ge=1, le=200)


class Decision(WireModel):
    reason: str = Field(default="", max_length=500)


class CycleBody(WireModel):
    force: bool = True


@bp.route("/api/brain", methods=["GET"])
def brain_status() -> Response:
    return ok(bp.services.brain_decisions.state())


@bp.route("/api/brain", methods=["POST"])
def brain_change() -> Response:
    body = parse_body(bp.current_request, BrainChange)
    decisions = bp.services.brain_decisions
    for name in ("interval", "budget", "max"):
        value = getattr(body, name)
        if value is not None:
            decisions.configure(name, str(value))
    if body.enabled is not None:
        decisions.switch(body.enabled)
    return ok(decisions.state())


@bp.route("/api/brain/cycle", methods=["POST"])
def brain_cycle() -> Response:
    body = parse_body(bp.current_request, CycleBody)
    return ok(bp.services.brain_loop.tick(force=body.force).to_json())


@bp.route("/api/brain/proposals", methods=["GET"])
def proposals() -> Response:
    query = parse_query(bp.current_request, ProposalsQuery)
    listed = bp.services.brain_decisions.list(status=query.status, limit=query.limit)
    return ok({"proposals": [p.to_json() for p in listed]})


@bp.route("/api/brain/proposals/{proposal_id}/approve", methods=["POST"])
def approve(proposal_id: str) -> Response:
    parse_body(bp.current_request, Decision)
    return ok(bp.services.brain_decisions.approve(proposal_id, "api").to_json())


@bp.route("/api/brain/proposals/{proposal_id}/reject", methods=["POST"])
def reject(proposal_id: str) -> Response:
    body = parse_body(bp.current_request, Decision)
    return ok(bp.services.brain_decisions.reject(proposal_id, body.reason, "api").to_json())
