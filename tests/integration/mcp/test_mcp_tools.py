"""The `mcp` SDK's own client against `itachi mcp` (stdio) and the API's `/mcp` (Streamable HTTP).

The same assertions run on every transport: the tools are one set, whichever way a client
connects (HTTP in both protocol eras: 2026-07-28 and the 2025-11-25 handshake).
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import anyio
import pytest

from chalicelib.contracts.mcp_tools import TOOLS
from tests.conftest import RunningApi
from tests.integration.mcp.mcp_clients import connect, http_client, text
from tests.integration.memory.conftest import call

TRANSPORTS = ["stdio", "http", "http-legacy"]
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_tool_can_be_listed_and_called(api: RunningApi, tmp_path: Path, transport: str) -> None:
    project = f"mcp-{transport}"
    assert call(api, "POST", "/api/project/rules", {"project": project,
                                                    "rule": "Run migrations before the tests"})[0] == 201

    async def scenario() -> None:
        async with connect(transport, api, tmp_path, project) as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == [t.name for t in TOOLS]
            assert all(t.description and t.input_schema["type"] == "object" for t in listed.tools)

            stored = await client.call_tool("memory_store", {
                "content": "We picked pgvector over a separate vector database.", "category": "decision",
                "tags": ["storage"]})
            assert not stored.is_error, text(stored)
            memory_id = UUID.search(text(stored)).group(0)  # type: ignore[union-attr]

            found = await client.call_tool("memory_search", {"query": "which vector database", "limit": 5})
            assert not found.is_error and memory_id in text(found) and "pgvector" in text(found)
            assert text(found).splitlines()[1].endswith(f"id {memory_id} tags: storage")

            tagged = await client.call_tool("memory_list", {"tag": "storage"})
            untagged = await client.call_tool("memory_list", {"tag": "nothing-here"})
            assert memory_id in text(tagged) and memory_id not in text(untagged)
            assert memory_id in text(await client.call_tool("memory_list", {"category": "decision"}))

            got = await client.call_tool("memory_get", {"id": memory_id})
            assert "separate vector database" in text(got) and "tags: storage" in text(got)

            status = await client.call_tool("memory_status", {})
            assert "2 memories (decision 1, project_rule 1)" in text(status)
            assert "Embedder:" in text(status) and "last write: 20" in text(status)

            rules = await client.call_tool("rules_list", {})
            assert "Run migrations before the tests" in text(rules)

            created = await client.call_tool("task_create", {"description": "Add a changelog entry"})
            assert not created.is_error, text(created)
            task_id = UUID.search(text(created)).group(0)  # type: ignore[union-attr]
            status_text = text(await client.call_tool("task_status", {"id": task_id[:8]}))
            assert task_id in status_text and "queued" in status_text
            assert task_id in text(await client.call_tool("task_list", {"status": "queued"}))
            assert "No tasks" in text(await client.call_tool("task_list", {"status": "completed"}))

            resources = await client.list_resources()
            assert {str(r.uri) for r in resources.resources} == {"itachi://project/rules",
                                                                 "itachi://project/briefing"}
            read = await client.read_resource("itachi://project/rules")
            assert "Run migrations before the tests" in read.contents[0].text
            briefing = await client.read_resource("itachi://project/briefing")
            assert briefing.contents[0].text.startswith(f"# Briefing: {project}")

            forgotten = await client.call_tool("memory_forget", {"id": memory_id})
            assert not forgotten.is_error and memory_id in text(forgotten)
            gone = await client.call_tool("memory_get", {"id": memory_id})
            assert gone.is_error and "no memory" in text(gone)

    anyio.run(scenario)
    # The memory went through the API: it is really gone there too.
    assert call(api, "GET", f"/api/memory/stats?project={project}")[1]["by_category"] == {"project_rule": 1}


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_bad_arguments_are_tool_errors_that_say_what_to_fix(api: RunningApi, tmp_path: Path,
                                                           transport: str) -> None:
    cases = [
        ("memory_search", {}, "'query' is a required property"),
        ("memory_search", {"query": 42}, "query: 42 is not of type 'string'"),
        ("memory_search", {"query": "x", "limit": 500}, "limit: 500 is greater than the maximum of 50"),
        ("memory_search", {"query": "x", "mode": "fuzzy"}, "mode: 'fuzzy' is not one of"),
        ("memory_store", {"content": "x", "colour": "red"}, "('colour' was unexpected)"),
        ("memory_store", {"content": "<private>only a secret</private>"}, "memory_store failed: content"),
        ("memory_get", {"id": "not-a-uuid"}, "id: 'not-a-uuid' does not match"),
        ("memory_forget", {"id": str(uuid.uuid4())}, "memory_forget failed: no memory"),
        ("task_status", {"id": "abcdef12"}, "task_status failed: no task"),
        ("task_list", {"status": "sleeping"}, "status: 'sleeping' is not one of"),
    ]

    async def scenario() -> None:
        async with connect(transport, api, tmp_path, "mcp-errors") as client:
            for name, arguments, message in cases:
                result = await client.call_tool(name, arguments)
                assert result.is_error, (name, arguments, text(result))
                assert message in text(result), (name, text(result))
            # The session is still fine after every refusal.
            assert not (await client.call_tool("memory_status", {})).is_error

    anyio.run(scenario)


def test_stdio_server_answers_for_the_repository_of_its_working_directory(api: RunningApi,
                                                                          tmp_path: Path) -> None:
    from tests.integration.mcp.mcp_clients import stdio_client

    repo = tmp_path / "repo"
    (repo / ".git" / "worktrees" / "feature").mkdir(parents=True)
    (repo / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:Acme/Rocket.git\n')
    (repo / ".git" / "worktrees" / "feature" / "commondir").write_text("../..\n")
    worktree = tmp_path / "feature-worktree"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {repo / '.git' / 'worktrees' / 'feature'}\n")

    async def scenario() -> None:
        async with stdio_client(api, worktree) as client:
            stored = await client.call_tool("memory_store", {"content": "Rockets need fuel."})
            assert "in github.com/acme/rocket" in text(stored)

    anyio.run(scenario)
    recent = call(api, "GET", "/api/memory/recent?project=github.com/acme/rocket&include_untrusted=true")[1]
    assert [m["content"] for m in recent["results"]] == ["Rockets need fuel."]
    assert recent["results"][0]["metadata"]["source"] == "mcp"
    assert (recent["results"][0]["source"], recent["results"][0]["trusted"]) == ("agent", False)


def test_remote_mcp_needs_the_api_key_and_a_project(api: RunningApi) -> None:
    import httpx2

    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    with httpx2.Client() as http:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            denied = http.post(api.url + "/mcp", json=listing, headers=headers)
            assert denied.status_code == 401 and denied.json()["error"] == "unauthorized"

    async def scenario() -> None:
        async with http_client(api, None) as client:
            assert (await client.list_resources()).resources == []
            result = await client.call_tool("memory_search", {"query": "anything"})
            assert result.is_error and "no project: pass `project`" in text(result)
            named = await client.call_tool("memory_search", {"query": "anything", "project": "elsewhere"})
            assert not named.is_error and "No memories match" in text(named)

    anyio.run(scenario)
