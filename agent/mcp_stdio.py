"""`itachi mcp`: Itachi's MCP tools over stdio, for any MCP client on this machine.

The project is the client's working directory's (the same `project_for` as the hooks, so
every worktree of a repo shares it; `ITACHI_PROJECT` overrides); the API and key come from the
hooks' config, so one key works for the hooks, the CLI and the MCP server.

A request the SDK cannot read (valid JSON that is not valid Unicode, like a lone surrogate
`\\ud800` in a tool's arguments, or not a JSON-RPC message) reaches the SDK as an exception it
only logs: the client would wait forever. When the line names a request id, it is answered here
with a JSON-RPC error instead.
"""

from __future__ import annotations

import json
import os
from importlib import metadata
from typing import Any


def _version() -> str:
    try:
        return metadata.version("itachi")
    except metadata.PackageNotFoundError:
        return ""


def working_project(project: str | None = None) -> str:
    """The project this server answers for: explicit, else the client's working directory's."""
    from chalicelib.contracts.project_identity import project_for

    return project or project_for(os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())


def serve(project: str | None = None) -> int:
    """Serve MCP on stdin/stdout until the client closes it."""
    import anyio
    from mcp.server.stdio import stdio_server

    from chalicelib.contracts.api_transport import ApiClient
    from chalicelib.mcp.sdk_server import build_server
    from chalicelib.mcp.services.api_backend import ApiBackend
    from chalicelib.mcp.services.tool_calls import McpTools

    # Inside a subagent's engine: its memory reads stay in the run's scope (the server's), and
    # the run is the default parent, sender and owner of what it spawns, sends and schedules.
    run_id = os.environ.get("ITACHI_AGENT_RUN_ID", "").strip() or None
    headers = {"X-Itachi-Agent-Run": run_id} if run_id else None
    backend = ApiBackend(ApiClient.configured(timeout_s=30.0, headers=headers))
    tools = McpTools(backend, working_project(project), own_run=run_id)
    server = build_server(tools, version=_version())

    async def main() -> None:
        async with stdio_server() as (read, write), anyio.create_task_group() as group:
            readable, receive = anyio.create_memory_object_stream[Any](0)
            group.start_soon(_answer_unreadable, read, readable, write)
            await server.run(receive, write, server.create_initialization_options())

    anyio.run(main)
    return 0


async def _answer_unreadable(read: Any, readable: Any, write: Any) -> None:
    """Pass on what the SDK read; answer a request it could not read with an error, not silence."""
    from mcp.shared.message import SessionMessage

    async with readable:
        async for item in read:
            error = unreadable_request_error(item) if isinstance(item, Exception) else None
            if error is None:
                await readable.send(item)
            else:
                await write.send(SessionMessage(error))


def unreadable_request_error(exc: Exception) -> Any | None:
    """The JSON-RPC error answering the request behind a read failure; None when no id can be found."""
    import mcp_types as types
    from pydantic import ValidationError

    line = exc.errors()[0].get("input") if isinstance(exc, ValidationError) and exc.errors() else None
    try:
        message = json.loads(line) if isinstance(line, str) else None
    except ValueError:
        return None
    request_id = message.get("id") if isinstance(message, dict) and "method" in message else None
    if not isinstance(request_id, int | str) or isinstance(request_id, bool):
        return None
    try:
        json.dumps(message, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        error = types.ErrorData(code=types.INVALID_PARAMS,
                                message="a string holds a lone surrogate: not valid Unicode")
    else:
        error = types.ErrorData(code=types.INVALID_REQUEST, message="not a valid JSON-RPC request")
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
