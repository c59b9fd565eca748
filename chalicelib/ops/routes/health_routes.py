"""GET /health: open (no key), reports database and queue status."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response

from chalicelib.kernel.http import ApiBlueprint, ok
from chalicelib.ops.services.health import check_health

if TYPE_CHECKING:
    from chalicelib.kernel.database import Database
    from chalicelib.kernel.queues import SqsQueues


class Uses:
    db: Database
    queues: SqsQueues


bp = ApiBlueprint(__name__, Uses)


@bp.route("/health", methods=["GET"])
def health() -> Response:
    container = bp.services
    report = check_health(container.db, container.queues)
    return ok(report, status=200 if report["status"] == "ok" else 503)
