"""GET /health: open (no key), reports database and queue status; GET /api/status: what this
deployment runs (authenticated)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response

from chalicelib.kernel.http import ApiBlueprint, ok
from chalicelib.ops.services.health import check_health, describe_deployment
from chalicelib.ops.services.housekeeping import retention_status

if TYPE_CHECKING:
    from chalicelib.kernel.database import Database
    from chalicelib.kernel.queues import SqsQueues
    from chalicelib.kernel.settings import Settings
    from chalicelib.ops.domain.retention import RetentionPolicy
    from chalicelib.ops.services.ports import RetentionRows


class Uses:
    db: Database
    queues: SqsQueues
    retention_policy: RetentionPolicy
    retention_rows: RetentionRows
    settings: Settings


bp = ApiBlueprint(__name__, Uses)


@bp.route("/health", methods=["GET"])
def health() -> Response:
    container = bp.services
    report = check_health(container.db, container.queues)
    return ok(report, status=200 if report["status"] == "ok" else 503)


@bp.route("/api/status", methods=["GET"])
def status() -> Response:
    container = bp.services
    def retention() -> dict[str, object]:
        return retention_status(container.retention_rows, container.retention_policy)

    return ok(describe_deployment(container.settings, container.db, container.queues, retention))
