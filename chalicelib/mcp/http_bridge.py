"""Serve one `/mcp` request with the `mcp` SDK's Streamable HTTP transport, inside a Chalice view.

Stateless and JSON-only: every request builds a fresh transport, answers with one JSON body
(no SSE stream, no `Mcp-Session-Id`) and leaves nothing behind, so any Lambda instance can
answer any request. The Chalice request becomes one ASGI call on a private event loop.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from chalicelib.mcp.sdk_server import build_server
from chalicelib.mcp.services.tool_calls import McpTools

PATH = "/mcp"


@dataclass
class BridgedResponse:
    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


def _scope(method: str, headers: dict[str, str], query: dict[str, str]) -> dict[str, Any]:
    return {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
        "method": method.upper(), "scheme": "https", "path": PATH, "raw_path": PATH.encode(),
        "root_path": "", "query_string": urllib.parse.urlencode(query).encode(),
        "headers": [(k.lower().encode("latin-1"), str(v).encode("latin-1")) for k, v in headers.items()],
        "client": ("127.0.0.1", 0), "server": ("itachi", 443),
    }


async def _serve(tools: McpTools, scope: dict[str, Any], body: bytes) -> BridgedResponse:
    response = BridgedResponse()
    done = anyio.Event()
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()  # the client "disconnects" only once the answer is complete
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            response.status = int(message["status"])
            response.headers = {k.decode("latin-1"): v.decode("latin-1")
                                for k, v in message.get("headers", [])}
        elif message["type"] == "http.response.body":
            response.body += message.get("body", b"")
            if not message.get("more_body"):
                done.set()

    manager = StreamableHTTPSessionManager(
        app=build_server(tools), json_response=True, stateless=True,
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    async with manager.run():
        await manager.handle_request(scope, receive, send)  # type: ignore[arg-type]
    done.set()
    return response


def handle(tools: McpTools, method: str, headers: dict[str, str], query: dict[str, str],
           body: bytes) -> BridgedResponse:
    """Answer one HTTP request to /mcp."""
    return anyio.run(_serve, tools, _scope(method, headers, query), body)
