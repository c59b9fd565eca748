"""Machine registry: agent heartbeats (which register the machine and its queue) and the list;
short-lived credentials for a machine's own queue; the agent's answers to the session picker's
folder listings and to /continue's session listings."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC
from typing import TYPE_CHECKING, Any, Protocol

from chalice import Response

from chalicelib.kernel.errors import InvalidInput, NotFound
from chalicelib.kernel.http import ApiBlueprint, ok, parse_body
from chalicelib.tasks.domain.machine_records import Heartbeat
from chalicelib.tasks.routes.agent_bodies import (
    FolderListingBody,
    HeartbeatBody,
    MachineBody,
    ResumableListingBody,
)

if TYPE_CHECKING:
    from chalicelib.tasks.services.machine_credentials import MachineCredentialVendor
    from chalicelib.tasks.services.machines import MachineRegistry

class MachineControls(Protocol):
    """The operator's controls a heartbeat's answer carries (engine order, a restart)."""

    def on_heartbeat(self, machine_id: str, agent_instance: str) -> dict[str, Any]: ...


class FolderWalks(Protocol):
    """Where an agent's folder listing goes: the session picker that asked for it."""

    def answered(self, machine_id: str, listing_id: str, listing: Mapping[str, Any]) -> bool: ...


class ResumeListings(Protocol):
    """Where an agent's list of terminal sessions goes: the /continue that asked for it."""

    def answered(self, machine_id: str, listing_id: str, answer: Mapping[str, Any]) -> bool: ...


class Uses:
    folder_walks: FolderWalks
    machine_controls: MachineControls
    machine_credentials: MachineCredentialVendor
    machine_registry: MachineRegistry
    resume_listings: ResumeListings
    telegram_enabled: bool


bp = ApiBlueprint(__name__, Uses)


@bp.route("/api/machines/heartbeat", methods=["POST"])
def heartbeat() -> Response:
    from chalicelib.contracts.agent_api import Registration  # lazy: cold start

    b = parse_body(bp.current_request, HeartbeatBody)
    container = bp.services
    reg = container.machine_registry.heartbeat(Heartbeat(
        b.machine_id, b.status, b.agent_instance, b.active_tasks, b.max_concurrent,
        tuple(b.engine_priority), tuple(b.projects), tuple(b.repos), b.hostname, b.agent_version))
    controls = container.machine_controls.on_heartbeat(b.machine_id, b.agent_instance)
    return ok(Registration(reg.machine_id, reg.queue_url, reg.sqs_endpoint_url, reg.region,
                           reg.heartbeat_s, reg.offline_after_s, list(reg.recovered_tasks),
                           controls.get("engine_priority"), controls.get("restart")).to_body())


@bp.route("/api/machines", methods=["GET"])
def list_machines() -> Response:
    return ok({"machines": bp.services.machine_registry.list_machines()})


@bp.route("/api/machines/{machine_id}/credentials", methods=["POST"])
def machine_credentials(machine_id: str) -> Response:
    from chalicelib.contracts.agent_api import QueueCredentialsAnswer  # lazy: cold start

    creds = bp.services.machine_credentials.vend(machine_id)
    answer = QueueCredentialsAnswer(creds.access_key_id, creds.secret_access_key, creds.session_token,
                                    creds.expires_at.astimezone(UTC).isoformat())
    response = ok(answer.to_body())
    response.headers["Cache-Control"] = "no-store"  # an answer that holds a secret
    return response


@bp.route("/api/machines/{machine_id}/folders/{listing_id}", methods=["POST"])
def folder_listing(machine_id: str, listing_id: str) -> Response:
    listing = _listing(machine_id, FolderListingBody, "folder listings serve the Telegram session picker")
    return ok({"shown": bp.services.folder_walks.answered(machine_id, listing_id, listing)})


@bp.route("/api/machines/{machine_id}/resumable/{listing_id}", methods=["POST"])
def resumable_listing(machine_id: str, listing_id: str) -> Response:
    listing = _listing(machine_id, ResumableListingBody, "session listings serve Telegram's /continue")
    return ok({"shown": bp.services.resume_listings.answered(machine_id, listing_id, listing)})


def _listing(machine_id: str, model: type[MachineBody], serves: str) -> dict[str, Any]:
    """An agent's listing for a Telegram picker: its body without the machine, which must be the path's."""
    b = parse_body(bp.current_request, model)
    if b.machine_id != machine_id:
        raise InvalidInput("machine_id must be the machine of the path", field="machine_id")
    if not bp.services.telegram_enabled:
        raise NotFound(f"{serves}, which is not configured")
    return b.model_dump(mode="json", exclude={"machine_id"})
