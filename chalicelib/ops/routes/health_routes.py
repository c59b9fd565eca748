"""GET /health: open (no key), reports database and queue status."""

from __future__ import annotations

from chalice import Response

from chalicelib.bootstrap import get_container
from chalicelib.kernel.http import ApiBlueprint, ok
from chalicelib.ops.services.health import check_health

bp = ApiBlueprint(__name__)


@bp.route("/health", methods=["GET"])
def health() -> Response:
    container = get_container()
    report = check_health(container.db, container.queues)
    return ok(report, status=200 if report["status"] == "ok" else 503)
