"""Chalice app: the REST API and the Telegram webhook. Each capability package owns its routes
(`chalicelib/<capability>/routes`); this module registers them and guards every request."""

from __future__ import annotations

import hmac
from collections.abc import Callable

from chalice import Chalice, Response
from chalice.app import Request

from chalicelib.bootstrap import get_container
from chalicelib.kernel.http import error_response
from chalicelib.kernel.idempotent_requests import use_database
from chalicelib.kernel.logging import get_logger
from chalicelib.learning import routes as learning_routes
from chalicelib.llm import routes as usage_routes
from chalicelib.mcp import routes as mcp_routes
from chalicelib.memory import routes as memory_routes
from chalicelib.ops.routes import health_routes, openapi_routes, status_routes
from chalicelib.sessions import routes as session_routes
from chalicelib.ssh import routes as ssh_routes
from chalicelib.sync import routes as sync_routes
from chalicelib.tasks.routes import agent_session_routes, agent_task_routes, machine_routes, task_routes
from chalicelib.telegram import routes as telegram_routes

app = Chalice(app_name="itachi", configure_logs=False)
use_database(lambda: get_container().db)  # where idempotent POSTs keep their replies
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
app.register_blueprint(sync_routes.bp)
app.register_blueprint(mcp_routes.bp)
app.register_blueprint(ssh_routes.bp)
app.register_blueprint(openapi_routes.bp)


_KEYED_PATHS = ("/mcp", "/openapi.json")


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
    """Enforce the body size limit and API-key auth (all but /health and the Telegram webhook, which
    checks Telegram's secret), with a request id in every log."""
    logger = get_logger()
    request_id = (request.context or {}).get("requestId", "-")
    # API Gateway's request id is the correlation id of everything this request logs.
    logger.thread_safe_append_keys(request_id=request_id, correlation_id=request_id)
    settings = get_container().settings
    if len(request.raw_body or b"") > settings.max_body_bytes:
        return error_response(413, "payload_too_large",
                              f"request body exceeds {settings.max_body_bytes} bytes")
    path = (request.context or {}).get("resourcePath", request.path)
    if (path.startswith("/api/") or path in _KEYED_PATHS) and not _authorized(request, settings.api_keys):
        return error_response(401, "unauthorized", "missing or invalid API key (Authorization: Bearer <key>)")
    response = get_response(request)
    logger.info("request", extra={"method": request.method, "route": path,
                                  "status": response.status_code})
    return response
