"""GET /api/status: what this deployment runs (authenticated; /health is the open probe)."""

from __future__ import annotations

from chalice import Response

from chalicelib.bootstrap import get_container
from chalicelib.kernel.http import ApiBlueprint, ok
from chalicelib.ops.services.health import describe_deployment
from chalicelib.ops.services.housekeeping import retention_status

bp = ApiBlueprint(__name__)


@bp.route("/api/status", methods=["GET"])
def status() -> Response:
    container = get_container()
    def retention() -> dict[str, object]:
        return retention_status(container.retention_rows, container.retention_policy)

    return ok(describe_deployment(container.settings, container.db, container.queues, retention))
