"""Scoped keys over MCP, with the SDK's own client: remote `/mcp` and the local `itachi mcp` (which
calls the REST API with the key it is given) refuse what the key may not do."""

from __future__ import annotations

from pathlib import Path

import anyio

from chalicelib.contracts.api_transport import ApiClient
from tests.conftest import RunningApi
from tests.integration.mcp.mcp_clients import http_client, stdio_client, text
from tests.support.orchestration import client_for


def _key(api: RunningApi, name: str, **scope: object) -> str:
    admin: ApiClient = client_for(api.url, api.key)
    return str(admin.post("/api/keys", {"name": name, "kind": "client", **scope})["key"])


def test_a_read_only_key_searches_over_remote_mcp_but_cannot_store(api: RunningApi) -> None:
    reader = _key(api, "claude-desktop", read_only=True)

    async def scenario() -> None:
        async with http_client(api, "p", key=reader) as client:
            stored = await client.call_tool("memory_store", {"content": "a new fact"})
            assert stored.is_error and "read-only" in text(stored)
            found = await client.call_tool("memory_search", {"query": "fact"})
            assert not found.is_error

    anyio.run(scenario)
    assert client_for(api.url, api.key).get("/api/memory/recent", project="p")["results"] == []


def test_a_project_key_cannot_reach_another_project_over_remote_mcp(api: RunningApi) -> None:
    limited = _key(api, "hooks-p", projects=["p"])

    async def scenario() -> None:
        async with http_client(api, "p", key=limited) as client:
            assert not (await client.call_tool("memory_store", {"content": "ours"})).is_error
            other = await client.call_tool("memory_search", {"query": "x", "project": "secret"})
            assert other.is_error and "limited to the projects p" in text(other)

    anyio.run(scenario)


def test_the_local_mcp_server_is_held_to_its_key_by_the_api(api: RunningApi, tmp_path: Path) -> None:
    reader = _key(api, "local-reader", read_only=True)

    async def scenario() -> None:
        async with stdio_client(api, tmp_path, ITACHI_PROJECT="p", ITACHI_API_KEY=reader) as client:
            stored = await client.call_tool("memory_store", {"content": "a new fact"})
            assert stored.is_error and "read-only" in text(stored)
            assert not (await client.call_tool("memory_search", {"query": "fact"})).is_error

    anyio.run(scenario)
