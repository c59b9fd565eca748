"""SSH targets (registered by the machines that reach them) and the agent's side of command runs.

Runs are started from Telegram (`/ssh`, `/exec`). These routes never return a run's output:
the agent posts it here and it goes only to the chat that asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from chalice import Response
from pydantic import Field

from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body, parse_query
from chalicelib.kernel.wire import INT32_MAX, Int32, Seconds, captured

if TYPE_CHECKING:
    from chalicelib.ssh.services.ssh_runs import SshRuns
    from chalicelib.ssh.services.ssh_targets import SshTargets


class Uses:
    ssh_runs: SshRuns
    ssh_targets: SshTargets


bp = ApiBlueprint(__name__, Uses)


class TargetBody(WireModel):
    name: str = Field(min_length=1, max_length=40)
    machine_id: str = Field(min_length=1, max_length=40)
    host: str = Field(min_length=1, max_length=253)
    port: int = Field(default=22, ge=1, le=65535)
    user: str = Field(min_length=1, max_length=64)
    key_path: str | None = Field(default=None, max_length=500)
    fingerprint: str | None = Field(default=None, max_length=60)
    platform: Literal["posix", "windows"] = "posix"
    reaches_machine: str | None = Field(default=None, max_length=40)
    allowed_commands: list[str] = Field(default_factory=list, max_length=50)


class MachineQuery(WireModel):
    machine_id: str = Field(min_length=1, max_length=40)


class ClaimBody(WireModel):
    machine_id: str = Field(min_length=1, max_length=40)


class OutputEvent(WireModel):
    stream: Literal["stdout", "stderr"] = "stdout"
    text: Annotated[str, captured(64_000)]  # command output: captured, never refused


class OutputBody(WireModel):
    machine_id: str = Field(min_length=1, max_length=40)
    seq: int = Field(ge=1, le=INT32_MAX)
    events: list[OutputEvent] = Field(max_length=500)


class ResultBody(WireModel):
    machine_id: str = Field(min_length=1, max_length=40)
    status: Literal["succeeded", "failed", "timed_out", "refused"]
    exit_code: Int32 | None = None
    error: Annotated[str, captured(4000)] | None = None
    duration_s: Seconds | None = None


class RunsQuery(WireModel):
    limit: int = Field(default=20, ge=1, le=200)


@bp.route("/api/ssh/targets", methods=["POST"])
def register_target() -> Response:
    from chalicelib.ssh.domain.ssh_model import SshTarget

    b = parse_body(bp.current_request, TargetBody)
    target, created = bp.services.ssh_targets.register(SshTarget(
        b.name, b.machine_id, b.host, b.port, b.user, b.key_path, b.fingerprint, b.platform,
        b.reaches_machine, tuple(c.strip() for c in b.allowed_commands)))
    return ok(target.to_json(), status=201 if created else 200)


@bp.route("/api/ssh/targets", methods=["GET"])
def list_targets() -> Response:
    return ok({"targets": [t.to_json() for t in bp.services.ssh_targets.listing()]})


@bp.route("/api/ssh/targets/{name}", methods=["DELETE"])
def remove_target(name: str) -> Response:
    q = parse_query(bp.current_request, MachineQuery)
    bp.services.ssh_targets.remove(name, q.machine_id)
    return ok({"name": name, "deleted": True})


@bp.route("/api/ssh/runs", methods=["GET"])
def list_runs() -> Response:
    q = parse_query(bp.current_request, RunsQuery)
    return ok({"runs": [r.to_json() for r in bp.services.ssh_runs.recent(q.limit)]})


@bp.route("/api/ssh/runs/{run_id}/claim", methods=["POST"])
def claim_run(run_id: str) -> Response:
    b = parse_body(bp.current_request, ClaimBody)
    run, target = bp.services.ssh_runs.claim(run_id, b.machine_id)
    return ok({"run": {**run.to_json(), "platform": run.platform}, "target": target.to_json()})


@bp.route("/api/ssh/runs/{run_id}/output", methods=["POST"])
def run_output(run_id: str) -> Response:
    b = parse_body(bp.current_request, OutputBody)
    events = [e.model_dump() for e in b.events]
    shown = bp.services.ssh_runs.record_output(run_id, b.machine_id, b.seq, events)
    return ok({"accepted": shown})


@bp.route("/api/ssh/runs/{run_id}/result", methods=["POST"])
def run_result(run_id: str) -> Response:
    b = parse_body(bp.current_request, ResultBody)
    run = bp.services.ssh_runs.finish(run_id, b.machine_id, b.status, b.exit_code, b.error, b.duration_s)
    return ok(run.to_json())
