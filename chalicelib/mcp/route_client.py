"""The REST API called in process, for `/mcp`: each tool call is a request to the route it stands for.

`/mcp`'s tools and `itachi mcp`'s use one backend (`services/api_backend.ApiBackend`: one REST call per tool);
`itachi mcp` sends the calls over HTTP, `/mcp` hands them to the Chalice app itself as API Gateway
would, with the caller's own `Authorization` header. So a tool goes through the same guard, request
model, service and answer as its route, and nothing of the API is written a second time.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from functools import cache
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from chalicelib.contracts.api_transport import ApiError, JsonCalls

# What an in-process request carries over from the `/mcp` request that made it.
PASSED_HEADERS = ("authorization", "x-itachi-agent-run", "user-agent")


class RestApp(Protocol):
    """The Chalice app: its route table, and API Gateway's entry point."""

    routes: dict[str, dict[str, Any]]
    current_request: Any
    lambda_context: Any

    def __call__(self, event: Any, context: Any) -> dict[str, Any]: ...


@cache
def _template(resource: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}/]+\})", resource)
    pattern = "".join(f"(?P<{p[1:-1]}>[^/]+)" if p.startswith("{") else re.escape(p) for p in parts)
    return re.compile(f"^{pattern}$")


def match_route(routes: Mapping[str, Any], path: str) -> tuple[str, dict[str, str]] | None:
    """The route template `path` falls under and its path parameters (literal segments win)."""
    if path in routes:
        return path, {}
    found = [(resource, m.groupdict()) for resource in routes if (m := _template(resource).match(path))]
    if not found:
        return None
    resource, params = min(found, key=lambda f: f[0].count("{"))
    return resource, {k: unquote(v) for k, v in params.items()}


class RouteClient(JsonCalls):
    """The API client's three calls (as `ApiClient`'s), answered by the app in this process."""

    def __init__(self, app: RestApp, headers: Mapping[str, str]) -> None:
        self._app = app
        self._passed = {k.lower(): v for k, v in headers.items() if k.lower() in PASSED_HEADERS}

    def _call(self, method: str, path: str, body: Any | None = None) -> Any:
        parts = urlsplit(path)
        matched = match_route(self._app.routes, parts.path)
        if matched is None:
            raise ApiError(404, f"no route {parts.path}")
        resource, params = matched
        query = parse_qs(parts.query, keep_blank_values=True)
        headers = {**self._passed, "accept": "application/json"}
        raw = None
        if body is not None:
            raw, headers["content-type"] = json.dumps(body), "application/json"
        event = {
            "resource": resource, "path": parts.path, "httpMethod": method, "headers": headers,
            "multiValueHeaders": {k: [v] for k, v in headers.items()},
            "queryStringParameters": {k: v[-1] for k, v in query.items()} or None,
            "multiValueQueryStringParameters": query or None,
            "pathParameters": params or None, "stageVariables": None, "body": raw, "isBase64Encoded": False,
            "requestContext": {"resourcePath": resource, "httpMethod": method, "path": parts.path,
                               "requestId": f"mcp-{uuid.uuid4()}"},
        }
        # The request the app is serving (none yet on a thread of the MCP SDK's, with the local server's
        # thread-local requests); the in-process call replaces it while it runs.
        saved = getattr(self._app, "current_request", None), getattr(self._app, "lambda_context", None)
        try:
            answer = self._app(event, saved[1])
        finally:  # the /mcp request goes on with its own request
            self._app.current_request, self._app.lambda_context = saved
        status, text = int(answer["statusCode"]), answer.get("body") or ""
        try:
            decoded = json.loads(text) if text else None
        except ValueError:
            decoded = None
        if not 200 <= status < 300:
            message = decoded.get("message") if isinstance(decoded, dict) else None
            raise ApiError(status, str(message or text or f"HTTP {status}"), decoded)
        return decoded
