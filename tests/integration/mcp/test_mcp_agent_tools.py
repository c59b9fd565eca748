"""`agent_spawn`, `agent_message` and `manage_cron` through the `mcp` SDK's own client, over
`itachi mcp` (stdio) and the API's `/mcp`: the runs, messages and jobs land in the API."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest

from tests.conftest import RunningApi
from tests.integration.mcp.mcp_clients import connect, text
from tests.support.orchestration import client_for, offline_machine

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_model_spawns_messages_and_schedules_subagents_through_mcp(
    api: RunningApi, tmp_path: Path, transport: str
) -> None:
    project = f"agents-{transport}"
    answers: dict[str, str] = {}
    offline_machine(client_for(api.url, api.key), "none")

    async def scenario() -> None:
        async with connect(transport, api, tmp_path, project) as client:
            spawned = await client.call_tool(
                "agent_spawn",
                {"profile": "code-reviewer", "task": "Review the payment PR", "machine": "none"},
            )
            assert not spawned.is_error, text(spawned)
            answers["spawn"] = text(spawned)
            run_id = UUID.search(text(spawned)).group(0)  # type: ignore[union-attr]
            answers["run"] = run_id
            sent = await client.call_tool(
                "agent_message", {"run": run_id[:8], "message": "Focus on refunds", "sender": "researcher"}
            )
            answers["message"] = text(sent)
            cron = await client.call_tool(
                "manage_cron",
                {"schedule": "0 9 * * mon", "run": run_id, "prompt": "Check the payment SDK's release notes"},
            )
            answers["cron"] = text(cron)
            both = await client.call_tool(
                "agent_message", {"run": run_id, "profile": "devops", "message": "x"}
            )
            answers["both"] = text(both) if both.is_error else ""
            unknown = await client.call_tool("agent_spawn", {"profile": "astrologer", "task": "x"})
            answers["unknown"] = text(unknown) if unknown.is_error else ""

    anyio.run(scenario)

    client = client_for(api.url, api.key)
    run = client.get(f"/api/agents/runs/{answers['run']}")
    messages = client.get(f"/api/agents/runs/{answers['run']}/messages")["messages"]
    (job,) = client.get("/api/agents/cron", profile="code-reviewer")["jobs"]
    assert answers["spawn"].startswith("Spawned code-reviewer run ")
    assert run["project"] == project and run["prompt"] == "Review the payment PR" and run["task_id"]
    assert "kept for the run's first turn" in answers["message"]
    assert [(m["sender"], m["body"]) for m in messages] == [("researcher", "Focus on refunds")]
    assert job["created_by_run"] == answers["run"] and job["project"] == project
    assert "Scheduled code-reviewer job" in answers["cron"]
    assert "either a run or a profile" in answers["both"]
    assert "no agent profile 'astrologer'" in answers["unknown"]


def test_inside_a_subagents_engine_the_stdio_tools_act_for_its_run_and_read_only_its_memory_scope(
    api: RunningApi, tmp_path: Path
) -> None:
    from tests.integration.mcp.mcp_clients import stdio_client

    project = "agents-scoped"
    client = client_for(api.url, api.key)
    for machine in ("nowhere", "none"):
        offline_machine(client, machine)
    facts = [("fact", "The SDK release notes live on the vendor blog."),
             ("decision", "We decided to pin the SDK release notes feed.")]
    client.post("/api/memory/batch", {"memories": [
        {"project": project, "category": c, "content": t, "source": "user"} for c, t in facts]})
    run = client.post("/api/agents/runs", {"profile": "researcher", "prompt": "Watch the SDK",
                                           "project": project, "machine": "nowhere"})
    calls = {"cron": ("manage_cron", {"schedule": "0 9 * * mon", "prompt": "Check again"}),
             "spawn": ("agent_spawn", {"profile": "code-reviewer", "task": "Review it", "machine": "none"}),
             "search": ("memory_search", {"query": "SDK release notes"})}
    answers: dict[str, str] = {}

    async def scenario() -> None:
        async with stdio_client(api, tmp_path, ITACHI_PROJECT=project, ITACHI_AGENT_RUN_ID=run["id"]) as mcp:
            for name, (tool, args) in calls.items():
                answer = await mcp.call_tool(tool, args)
                assert not answer.is_error, text(answer)
                answers[name] = text(answer)

    anyio.run(scenario)

    (job,) = client.get("/api/agents/cron", profile="researcher")["jobs"]
    child_id = UUID.search(answers["spawn"]).group(0)  # type: ignore[union-attr]
    assert job["created_by_run"] == run["id"] and job["prompt"] == "Check again"
    assert client.get(f"/api/agents/runs/{child_id}")["parent_run_id"] == run["id"]
    assert "vendor blog" in answers["search"]  # researcher reads facts...
    assert "pin the SDK" not in answers["search"]  # ...not decisions
