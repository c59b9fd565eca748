"""Connect the `mcp` SDK's own client to Itachi: `itachi mcp` over stdio, or the API's `/mcp`."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from tests.conftest import REPO_ROOT, RunningApi

# Generous: the first embedding in a test process loads the local model.
TIMEOUT_S = 120.0


def stdio_env(api: RunningApi, home: Path, **extra: str) -> dict[str, str]:
    """What `itachi mcp` needs to reach the API: the hooks' variables, nothing else of ours."""
    return {"ITACHI_API_URL": api.url, "ITACHI_API_KEY": api.key, "ITACHI_HOME": str(home),
            "PYTHONPATH": str(REPO_ROOT), "PATH": os.environ.get("PATH", ""), **extra}


@asynccontextmanager
async def stdio_client(api: RunningApi, cwd: Path, **env: str) -> AsyncIterator[Any]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "agent.cli", "mcp"], cwd=cwd,
                                   env=stdio_env(api, cwd / ".itachi-home", **env))
    async with Client(params, read_timeout_seconds=TIMEOUT_S) as client:
        yield client


@asynccontextmanager
async def http_client(api: RunningApi, project: str | None, *, mode: str = "auto",
                      key: str | None = None) -> AsyncIterator[Any]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    url = api.url + "/mcp" + (f"?project={project}" if project else "")
    headers = {"Authorization": f"Bearer {key or api.key}"}
    async with (httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(TIMEOUT_S)) as http,
                Client(streamable_http_client(url, http_client=http), mode=mode,  # type: ignore[arg-type]
                       read_timeout_seconds=TIMEOUT_S) as client):
        yield client


@asynccontextmanager
async def connect(transport: str, api: RunningApi, workdir: Path, project: str) -> AsyncIterator[Any]:
    """A client for `project`: stdio takes it from ITACHI_PROJECT, HTTP from ?project=."""
    if transport == "stdio":
        async with stdio_client(api, workdir, ITACHI_PROJECT=project) as client:
            yield client
    else:
        mode = "legacy" if transport == "http-legacy" else "auto"
        async with http_client(api, project, mode=mode) as client:
            yield client


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")
