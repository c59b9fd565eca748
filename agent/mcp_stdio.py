"""`itachi mcp`: Itachi's MCP tools over stdio, for any MCP client on this machine.

The project is the client's working directory's (the same `project_for` as the hooks, so
every worktree of a repo shares it; `ITACHI_PROJECT` overrides); the API and key come from the
hooks' config, so one key works for the hooks, the CLI and the MCP server.
"""

from __future__ import annotations

import os
from importlib import metadata


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

    from agent.mcp_backend import ApiBackend
    from chalicelib.contracts.api_transport import ApiClient
    from chalicelib.mcp.sdk_server import build_server
    from chalicelib.mcp.services.tool_calls import McpTools

    # Inside a subagent's engine: its memory reads stay in the run's scope (the server's), and
    # the run is the default parent, sender and owner of what it spawns, sends and schedules.
    run_id = os.environ.get("ITACHI_AGENT_RUN_ID", "").strip() or None
    headers = {"X-Itachi-Agent-Run": run_id} if run_id else None
    backend = ApiBackend(ApiClient.configured(timeout_s=30.0, headers=headers))
    tools = McpTools(backend, working_project(project), own_run=run_id)
    server = build_server(tools, version=_version())

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
    return 0
