"""`/mcp`: Itachi's MCP tools over Streamable HTTP (stateless JSON), behind the API's Bearer auth.

The project comes from `?project=` in the endpoint URL or the `X-Itachi-Project` header; a
tool call may name its own. The caller's key scopes each tool call as it scopes the REST routes
the tool stands for (`tool_refusal` in `chalicelib/auth/domain/access_policy.py`).
The `mcp` SDK is imported here on first use only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from chalice import Response

from chalicelib.auth.domain.access_policy import tool_refusal
from chalicelib.auth.domain.api_keys import Principal
from chalicelib.auth.request_principal import current_principal
from chalicelib.kernel.http import ApiBlueprint
from chalicelib.mcp.route_client import RestApp

if TYPE_CHECKING:
    from chalicelib.auth.domain.machine_scope import Owned


class Machines(Protocol):
    def machine_of(self, kind: Owned, ref: str) -> tuple[bool, str | None]: ...


@dataclass(frozen=True)
class Uses:
    """What `/mcp` uses, provided by app.py: the app itself (each tool calls its REST route in
    process) and where a resource lives (a machine key's tool calls act on its own machine's only)."""

    app: RestApp
    machines: Machines


bp = ApiBlueprint(__name__, Uses)

# Headers worth passing back: the content type and the MCP ones (no session id in stateless mode).
_ANSWER_HEADERS = ("content-type", "mcp-protocol-version")


def _permit(principal: Principal) -> Callable[[str, dict[str, Any], str | None], str | None]:
    """The caller's key's scope, applied to each tool call as to the REST routes the tool stands for
    (a refusal is a tool error)."""
    def permit(tool: str, args: dict[str, Any], project: str | None) -> str | None:
        refused = tool_refusal(principal, tool, args, project, bp.services.machines.machine_of)
        return refused.message if refused else None

    return permit


@bp.route("/mcp", methods=["POST", "GET", "DELETE"])
def mcp_endpoint() -> Response:
    from chalicelib.mcp import http_bridge
    from chalicelib.mcp.route_client import RouteClient
    from chalicelib.mcp.services.api_backend import ApiBackend
    from chalicelib.mcp.services.tool_calls import McpTools

    request = bp.current_request
    if request.method != "POST":
        # Stateless: no server-to-client stream to open (GET) and no session to end (DELETE).
        return Response(body={"error": "method_not_allowed", "message": "this MCP endpoint is stateless: "
                              "POST JSON-RPC messages to it"}, status_code=405,
                        headers={"Content-Type": "application/json", "Allow": "POST"})
    query = dict(request.query_params or {})
    project = (query.get("project") or request.headers.get("x-itachi-project") or "").strip() or None
    backend = ApiBackend(RouteClient(bp.services.app, dict(request.headers)))
    tools = McpTools(backend, project, permit=_permit(current_principal()))
    raw = request.raw_body or b""
    body = raw.encode() if isinstance(raw, str) else raw
    answer = http_bridge.handle(tools, request.method, dict(request.headers), query, body)
    headers: dict[str, str | list[str]] = {k: v for k, v in answer.headers.items()
                                           if k.lower() in _ANSWER_HEADERS}
    return Response(body=answer.body.decode("utf-8", errors="replace"), status_code=answer.status,
                    headers=headers)
