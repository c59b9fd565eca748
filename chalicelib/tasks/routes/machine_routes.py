"""Machine registry: agent heartbeats (which register the machine and its queue) and the list."""

from __future__ import annotations

from typing import Literal

from chalice import Response
from pydantic import Field

from chalicelib.bootstrap import get_container
from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body
from chalicelib.kernel.wire import Count
from chalicelib.tasks.domain.machine_records import Heartbeat

bp = ApiBlueprint(__name__)


class HeartbeatBody(WireModel):
    machine_id: str = Field(min_length=1, max_length=40)
    agent_instance: str = Field(min_length=1, max_length=100)
    status: Literal["online", "draining", "offline"] = "online"
    active_tasks: Count = 0
    max_concurrent: int = Field(default=1, ge=0, le=64)
    engine_priority: list[str] = Field(default_factory=lambda: ["claude"], max_length=10)
    projects: list[str] = Field(default_factory=list, max_length=500)
    repos: list[str] = Field(default_factory=list, max_length=500)
    hostname: str | None = Field(default=None, max_length=255)
    agent_version: str | None = Field(default=None, max_length=50)


@bp.route("/api/machines/heartbeat", methods=["POST"])
def heartbeat() -> Response:
    b = parse_body(bp.current_request, HeartbeatBody)
    reg = get_container().machine_registry.heartbeat(Heartbeat(
        b.machine_id, b.status, b.agent_instance, b.active_tasks, b.max_concurrent,
        tuple(b.engine_priority), tuple(b.projects), tuple(b.repos), b.hostname, b.agent_version))
    return ok({"machine_id": reg.machine_id, "queue_url": reg.queue_url,
               "sqs_endpoint_url": reg.sqs_endpoint_url, "region": reg.region,
               "heartbeat_s": reg.heartbeat_s, "offline_after_s": reg.offline_after_s,
               "recovered_tasks": list(reg.recovered_tasks)})


@bp.route("/api/machines", methods=["GET"])
def list_machines() -> Response:
    return ok({"machines": get_container().machine_registry.list_machines()})
