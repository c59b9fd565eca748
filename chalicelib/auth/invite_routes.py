"""Machine onboarding: an admin invites one named machine (`/api/machines/invites`), that machine
joins with the one-time token (`/api/machines/join`: the token is its credential, no API key) and
gets a machine key, unless the machine still has a live one (409)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response
from chalice.app import Request
from pydantic import Field

from chalicelib.auth.request_principal import current_principal
from chalicelib.auth.routes import refuse_replay
from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body

if TYPE_CHECKING:
    from chalicelib.auth.services.machine_onboarding import MachineOnboarding
    from chalicelib.kernel.settings import Settings


class Uses:
    machine_onboarding: MachineOnboarding
    settings: Settings


bp = ApiBlueprint(__name__, Uses)


class InviteBody(WireModel):
    machine_id: str = Field(min_length=1, max_length=40)  # the one machine this invite may join
    ttl_minutes: int = Field(default=60, ge=1, le=7 * 24 * 60)


class JoinBody(WireModel):
    token: str = Field(min_length=1, max_length=200)
    machine_id: str | None = Field(default=None, min_length=1, max_length=40)  # if given, the invite's


def _api_url(request: Request) -> str:
    """The URL machines reach this API at: ITACHI_PUBLIC_URL, else what this request was sent to."""
    configured = bp.services.settings.public_url
    if configured:
        return configured
    headers, context = request.headers, request.context or {}
    host = context.get("domainName") or headers.get("host") or ""
    scheme = headers.get("x-forwarded-proto") or ("https" if host.endswith("amazonaws.com") else "http")
    stage = context.get("stage") if host.endswith("amazonaws.com") else None
    return f"{scheme}://{host}" + (f"/{stage}" if stage else "") if host else ""


@bp.route("/api/machines/invites", methods=["POST"])
def invite_machine() -> Response:
    """Create a one-time, expiring invite; the answer's token and join command are shown once."""
    refuse_replay(bp.current_request)
    b = parse_body(bp.current_request, InviteBody)
    invite, token = bp.services.machine_onboarding.invite(current_principal().name, b.machine_id,
                                                              b.ttl_minutes)
    return ok({"machine_id": invite.machine_id, "expires_at": invite.expires_at.isoformat(), "token": token,
               "join_command": invite.join_command(_api_url(bp.current_request), token)}, status=201)


@bp.route("/api/machines/join", methods=["POST"])
def join_machine() -> Response:
    """Spend an invite token (no API key needed): the answer holds the machine's new key, once."""
    refuse_replay(bp.current_request)
    b = parse_body(bp.current_request, JoinBody)
    joined = bp.services.machine_onboarding.join(b.token, b.machine_id)
    return ok({"machine_id": joined.machine_id, "key_name": joined.key_name, "api_key": joined.api_key},
              status=201)
