"""Itachi's tools as an `mcp` SDK low-level Server; the transports (stdio, HTTP) drive it.

Imports the SDK: only `itachi mcp` and the `/mcp` route import this module, lazily.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from chalicelib.contracts.mcp_tools import TOOLS
from chalicelib.mcp.services.ports import BackendError
from chalicelib.mcp.services.tool_calls import McpTools, ToolInputError

SERVER_NAME = "itachi"
INSTRUCTIONS = ("Itachi is this project's long-term memory. Search it (memory_search) before answering "
                "questions about the project's past decisions, conventions or earlier work; store "
                "durable decisions and facts (memory_store); follow the rules from rules_list; ask "
                "graph_recall who owns what and which team instructions and plans apply.")


def tool_definitions() -> list[types.Tool]:
    """The MCP tool list, from the shared specs."""
    return [types.Tool(name=spec.name, title=spec.title, description=spec.description,
                       input_schema=spec.input_schema,
                       annotations=types.ToolAnnotations(
                           title=spec.title, read_only_hint=spec.read_only,
                           destructive_hint=spec.destructive, idempotent_hint=spec.read_only,
                           open_world_hint=False))
            for spec in TOOLS]


def build_server(tools: McpTools, version: str = "") -> Server[Any]:
    """A low-level Server whose handlers run `tools` (blocking I/O in a worker thread)."""
    listed = tool_definitions()

    async def list_tools(ctx: ServerRequestContext[Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: ServerRequestContext[Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        answer = await anyio.to_thread.run_sync(tools.call, params.name, params.arguments)
        # Text only: Claude Code hands a result's structuredContent (raw JSON) to the model in
        # place of its text, and the text is what the tools are written to say.
        return types.CallToolResult(content=[types.TextContent(type="text", text=answer.text)],
                                    is_error=answer.is_error)

    async def list_resources(ctx: ServerRequestContext[Any],
                             params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=r.uri, name=r.name, title=r.title, description=r.description,
                           mime_type=r.mime_type) for r in tools.resources()])

    async def read_resource(ctx: ServerRequestContext[Any],
                            params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            text = await anyio.to_thread.run_sync(tools.read_resource, uri)
        except ToolInputError as exc:
            raise MCPError(code=types.INVALID_PARAMS, message=str(exc)) from None
        except BackendError as exc:
            raise MCPError(code=types.INTERNAL_ERROR, message=f"cannot read {uri}: {exc.message}") from None
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=uri, mime_type="text/markdown", text=text)])

    return Server(SERVER_NAME, version=version, title="Itachi memory", instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
                  on_read_resource=read_resource)
