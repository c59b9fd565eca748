"""Every MCP tool over `/mcp`, with the SDK's own client, refuses what REST refuses the same key: a key
for another machine acting on machine B's work, and a key limited to one project calling what REST
keeps for keys of every project."""

from __future__ import annotations

import json
from typing import Any

import anyio

from chalicelib.contracts.mcp_tools import TOOLS_BY_NAME
from tests.conftest import RunningApi
from tests.integration.mcp.mcp_clients import http_client, text
from tests.support.machine_work import B, call, two_machines

Rest = tuple[str, str, dict[str, Any], Any]  # method, path, query, body
REFUSALS = ("acts for machine", "is limited to the projects", "is read-only", "needs an admin key")
# Over REST a by-id read is checked on its answer; a tool's answer is text, so MCP refuses it to a
# key limited to projects outright.
STRICTER_OVER_MCP = {"memory_get"}


def _cases(ids: dict[str, str], memory_id: str) -> dict[str, tuple[dict[str, Any], list[Rest]]]:
    """Each tool's arguments, naming B's work, and the REST requests that do the same work."""
    task, run, p = ids["task"], ids["agent_run"], {"project": "proj"}
    return {
        "memory_search": ({"query": "deploy", **p},
                          [("GET", "/api/memory/search", {"query": "deploy", **p}, None)]),
        "memory_store": ({"content": "the deploy runs at nine", **p},
                         [("POST", "/api/memory", {}, {"content": "the deploy runs at nine", **p})]),
        "memory_list": (p, [("GET", "/api/memory/recent", p, None)]),
        "memory_get": ({"id": memory_id}, [("GET", f"/api/memory/{memory_id}", {}, None)]),
        "memory_forget": ({"id": memory_id}, [("DELETE", f"/api/memory/{memory_id}", {}, None)]),
        "memory_status": (p, [("GET", "/api/memory/stats", p, None)]),
        "rules_list": (p, [("GET", "/api/rules", p, None)]),
        "task_create": ({"description": "on B", "machine": B, **p},
                        [("POST", "/api/tasks", {}, {"description": "on B", "machine": B, **p})]),
        "task_status": ({"id": task}, [("GET", f"/api/tasks/{task}", {}, None),
                                       ("GET", f"/api/tasks/{task}/events", {}, None)]),
        "task_list": (p, [("GET", "/api/tasks", p, None)]),
        "agent_spawn": ({"profile": "researcher", "task": "dig", "machine": B, "parent_run": run, **p},
                        [("POST", "/api/agents/runs", {}, {"profile": "researcher", "prompt": "dig",
                                                           "machine": B, "parent_run_id": run, **p})]),
        "agent_message": ({"run": run, "message": "and then?"},
                          [("POST", f"/api/agents/runs/{run}/messages", {}, {"body": "and then?"})]),
        "manage_cron": ({"schedule": "0 9 * * 1", "prompt": "weekly", "run": run},
                        [("POST", "/api/agents/cron", {}, {"schedule": "0 9 * * 1", "prompt": "weekly",
                                                           "run_id": run})]),
        "graph_recall": ({"query": "who owns the deploy", "deep": False, **p},
                         [("GET", "/api/graph/context",
                           {"query": "who owns the deploy", "deep": "false", **p}, None)]),
        "graph_contradictions": (p, [("GET", "/api/graph/contradictions", p, None)]),
    }


def _rest_refusal(url: str, key: str, requests: list[Rest]) -> str | None:
    """The message of the first 403 REST answers these requests with this key (None: none refused)."""
    for method, path, query, body in requests:
        status, answer = call(url, key, method, path, query, body)
        if status == 403:
            return str(json.loads(answer)["message"])
    return None


def test_every_mcp_tool_refuses_what_rest_refuses_the_same_key(api: RunningApi) -> None:
    admin, key_a, _, ids = two_machines(api)
    limited = str(admin.post("/api/keys", {"name": "hooks-proj", "kind": "client",
                                           "projects": ["proj"]})["key"])
    memory = admin.post("/api/memory", {"project": "proj", "content": "B's runbook lives in the wiki"})
    cases = _cases(ids, str(memory["id"]))
    assert set(cases) == set(TOOLS_BY_NAME)
    mismatches: list[str] = []

    async def scenario() -> None:
        for who, key in (("machine A's key", key_a), ("a key limited to proj", limited)):
            async with http_client(api, None, key=key) as client:
                for tool, (args, rest) in cases.items():
                    expected = _rest_refusal(api.url, key, rest)
                    answer = await client.call_tool(tool, args)
                    said = text(answer)
                    refused = answer.is_error and any(r in said for r in REFUSALS)
                    if expected is not None and not (answer.is_error and expected in said):
                        mismatches.append(f"{who}: REST refuses {tool} ({expected}); MCP said {said[:120]!r}")
                    elif expected is None and refused and not (key == limited and tool in STRICTER_OVER_MCP):
                        mismatches.append(f"{who}: REST allows {tool}; MCP refused: {said[:120]!r}")
                    if key == key_a and tool in ("task_create", "task_status", "agent_spawn", "agent_message",
                                                 "manage_cron") and not refused:
                        mismatches.append(f"{who}: {tool} acted on machine B's work: {said[:120]!r}")
                    if key == key_a and tool == "task_list" and ids["task"][:8] in said:
                        mismatches.append(f"{who}: task_list shows machine B's task")

    anyio.run(scenario)
    assert not mismatches, "\n".join(mismatches)
