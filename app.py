"""Chalice app: the REST API and the Telegram webhook. Routes live in chalicelib/routes/."""

from __future__ import annotations

import hmac
from collections.abc import Callable

from chalice import Chalice, Response
from chalice.app import Request

from chalicelib.bootstrap import get_container
from chalicelib.http import error_response
from chalicelib.logging import get_logger
from chalicelib.routes import (
    agent_session_routes,
    agent_task_routes,
    health_routes,
    learning_routes,
    machine_routes,
    memory_routes,
    session_routes,
    status_routes,
    task_routes,
    telegram_routes,
    usage_routes,
)

app = Chalice(app_name="itachi", configure_logs=False)
app.register_blueprint(health_routes.bp)
app.register_blueprint(status_routes.bp)
app.register_blueprint(usage_routes.bp)
app.register_blueprint(session_routes.bp)
app.register_blueprint(task_routes.bp)
app.register_blueprint(agent_task_routes.bp)
app.register_blueprint(machine_routes.bp)
app.register_blueprint(agent_session_routes.bp)
app.register_blueprint(telegram_routes.bp)
app.register_blueprint(learning_routes.bp)
app.register_blueprint(memory_routes.bp)


def _authorized(request: Request, keys: tuple[str, ...]) -> bool:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        return False
    # Compare against every key in constant time.
    matches = [hmac.compare_digest(token.encode(), key.encode()) for key in keys]
    return any(matches)


@app.middleware("http")
def guard(request: Request, get_response: Callable[[Request], Response]) -> Response:
    """Enforce the body size limit and API-key auth on /api/*, with a request id in every log."""
    logger = get_logger()
    request_id = (request.context or {}).get("requestId", "-")
    # API Gateway's request id is the correlation id of everything this request logs.
    logger.thread_safe_append_keys(request_id=request_id, correlation_id=request_id)
    settings = get_container().settings
    if len(request.raw_body or b"") > settings.max_body_bytes:
        return error_response(413, "payload_too_large",
                              f"request body exceeds {settings.max_body_bytes} bytes")
    path = (request.context or {}).get("resourcePath", request.path)
    if path.startswith("/api/") and not _authorized(request, settings.api_keys):
        return error_response(401, "unauthorized", "missing or invalid API key (Authorization: Bearer <key>)")
    response = get_response(request)
    logger.info("request", extra={"method": request.method, "route": path,
                                  "status": response.status_code})
    return response
