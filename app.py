"""Chalice app: the REST API and the Telegram webhook. Each capability package owns its routes
(`chalicelib/<capability>/routes`); this module registers them and guards every request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalice import Chalice, Response
from chalice.app import Request

from chalicelib.agents import profile_routes as agent_profile_routes
from chalicelib.agents import run_routes as agent_run_routes
from chalicelib.approvals import routes as approval_routes
from chalicelib.auth import invite_routes
from chalicelib.auth import routes as key_routes
from chalicelib.auth.domain.api_keys import Principal
from chalicelib.auth.request_guard import UNAUTHORIZED, admit, vet_answer
from chalicelib.auth.request_principal import principal_or_none, reset_principal, set_principal
from chalicelib.bootstrap import get_container
from chalicelib.brain import routes as brain_routes
from chalicelib.console.domain.cookies import SESSION_COOKIE, read_cookie
from chalicelib.console.routes import auth_pages as console_auth_pages
from chalicelib.console.routes import brain_pages as console_brain_pages
from chalicelib.console.routes import context_pages as console_context_pages
from chalicelib.console.routes import graph_pages as console_graph_pages
from chalicelib.console.routes import memory_pages as console_memory_pages
from chalicelib.console.routes import overview_pages as console_overview_pages
from chalicelib.console.routes import review_pages as console_review_pages
from chalicelib.console.routes import task_pages as console_task_pages
from chalicelib.console.web import sign_in_first
from chalicelib.context import routes as context_routes
from chalicelib.graph import routes as graph_routes
from chalicelib.kernel.errors import DomainError
from chalicelib.kernel.http import ServedBlueprint, error_response
from chalicelib.kernel.idempotent_requests import use_database
from chalicelib.kernel.logging import get_logger
from chalicelib.learning import routes as learning_routes
from chalicelib.llm import routes as usage_routes
from chalicelib.mcp import routes as mcp_routes
from chalicelib.memory import lifecycle_routes as memory_lifecycle_routes
from chalicelib.memory import memory_tool_routes
from chalicelib.memory import routes as memory_routes
from chalicelib.memory import snapshot_routes as memory_snapshot_routes
from chalicelib.namespaces import routes as namespace_routes
from chalicelib.ops.routes import health_routes, openapi_routes
from chalicelib.sessions import routes as session_routes
from chalicelib.ssh import routes as ssh_routes
from chalicelib.sync import routes as sync_routes
from chalicelib.tasks.routes import agent_session_routes, agent_task_routes, machine_routes, task_routes
from chalicelib.telegram import routes as telegram_routes
from chalicelib.triggers import routes as github_trigger_routes

app = Chalice(app_name="itachi", configure_logs=False)


def _serve(blueprint: ServedBlueprint[Any], services: Callable[[], object] = get_container) -> None:
    """Register a routes module, handing it where its views read what its `Uses` names (the container;
    tests/unit/test_route_uses.py checks the container has it all)."""
    blueprint.provide(services)
    app.register_blueprint(blueprint)


def _caller() -> str:
    """Whose idempotent POSTs these are: the stored key's id, the admin, or nobody (an open route)."""
    principal = principal_or_none()
    return "open" if principal is None else principal.key_id or "admin"


# Where idempotent POSTs keep their replies, recorded per caller.
use_database(lambda: get_container().db, _caller)
# The routes modules whose views read their services from the container.
SERVED: tuple[ServedBlueprint[Any], ...] = (
    health_routes.bp,
    approval_routes.bp,
    usage_routes.bp,
    session_routes.bp,
    task_routes.bp,
    agent_task_routes.bp,
    machine_routes.bp,
    agent_session_routes.bp,
    telegram_routes.bp,
    github_trigger_routes.bp,
    learning_routes.bp,
    memory_routes.bp,
    context_routes.bp,
    graph_routes.bp,
    memory_lifecycle_routes.bp,
    memory_snapshot_routes.bp,
    memory_tool_routes.bp,
    namespace_routes.bp,
    sync_routes.bp,
    ssh_routes.bp,
    openapi_routes.bp,
    key_routes.bp,
    invite_routes.bp,
    brain_routes.bp,
    agent_profile_routes.bp,
    agent_run_routes.bp,
    console_auth_pages.bp,  # the web console (cookie sessions, see chalicelib/console)
    console_auth_pages.api,
    console_memory_pages.bp,
    console_task_pages.bp,
    console_overview_pages.bp,
    console_brain_pages.bp,
    console_context_pages.bp,
    console_graph_pages.bp,
    console_review_pages.bp,
)
for served in SERVED:
    _serve(served)
_serve(mcp_routes.bp, lambda: mcp_routes.Uses(app, get_container()))


# Default deny: every route needs an API key, but these, each checking a credential of its own
# or guarding nothing (docs/api.md, "Open routes"; tests/functional/test_open_routes.py).
OPEN_ROUTES: dict[str, str] = {
    "/health": "liveness for monitors: up or down, no stored data",
    "/telegram/webhook": "Telegram's secret header, compared with the deployment's webhook secret",
    "/webhooks/github": "GitHub's HMAC-SHA256 signature of the body, under the deployment's webhook secret",
    "/api/machines/join": "the one-time invite token in the body is the credential",
    "/console/login": "the console's sign-in form: it takes an admin key or a one-time link",
    "/console/assets/{name}": "the console's static CSS and JavaScript, the same for everyone",
}
# The console's other pages take a live console session (its cookie) instead of a key.
CONSOLE_PAGES = "/console"


def _console_refusal(request: Request) -> Response | None:
    """None when the request carries a live console session, else the sign-in answer."""
    try:
        cookie = read_cookie(request.headers.get("cookie"), SESSION_COOKIE)
        session = get_container().console_auth.session(cookie)
    except DomainError as exc:  # the session store is unreachable
        return error_response(exc.status, exc.code, exc.message)
    return None if session is not None else sign_in_first(request)


def _admitted(request: Request, path: str) -> tuple[Principal | None, Response | None]:
    """The request's principal, or the 401 / 403 / 503 to answer instead of the route."""
    try:
        container = get_container()
        principal, refused = admit(container.authenticator, request.method, path, request.headers,
                                   request.query_params, request.raw_body, request.uri_params,
                                   container.machine_of)
    except DomainError as exc:  # the key store is unreachable: 503, like every route
        return None, error_response(exc.status, exc.code, exc.message)
    if principal is None:
        return None, error_response(401, "unauthorized", UNAUTHORIZED)
    if refused:
        return None, error_response(403, "forbidden", refused)
    return principal, None


@app.middleware("http")
def guard(request: Request, get_response: Callable[[Request], Response]) -> Response:
    """Enforce the body size limit and, on every route but the open ones, an API key with its scope
    (a console session on the console's pages), and put a request id in every log."""
    logger = get_logger()
    request_id = (request.context or {}).get("requestId", "-")
    # API Gateway's request id is the correlation id of everything this request logs.
    logger.thread_safe_append_keys(request_id=request_id, correlation_id=request_id)
    settings = get_container().settings
    if len(request.raw_body or b"") > settings.max_body_bytes:
        return error_response(413, "payload_too_large",
                              f"request body exceeds {settings.max_body_bytes} bytes")
    path = (request.context or {}).get("resourcePath", request.path)
    principal: Principal | None = None
    if path not in OPEN_ROUTES:
        if path == CONSOLE_PAGES or path.startswith(CONSOLE_PAGES + "/"):
            refusal = _console_refusal(request)
        else:
            principal, refusal = _admitted(request, path)
        if refusal is not None:
            logger.info("request", extra={"method": request.method, "route": path,
                                          "status": refusal.status_code})
            return refusal
    token = set_principal(principal) if principal is not None else None
    try:
        response = get_response(request)
    finally:
        if token is not None:
            reset_principal(token)
    withheld = principal and response.status_code == 200 and vet_answer(principal, request.method, path,
                                                                          response.body)
    if withheld:
        response = error_response(403, "forbidden", withheld)
    logger.info("request", extra={"method": request.method, "route": path, "key": principal.name if principal
                                  else None, "status": response.status_code})
    return response
