"""A machine key acts on its own machine's work only: every operation of the API's own OpenAPI document,
called with machine A's key against machine B's task, session, subagent run, SSH run and folders, with
bodies and queries naming B, is refused; what a machine key may do everywhere is listed on purpose."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.conftest import RunningApi
from tests.support.machine_work import A, B, MachinesWork, call, two_machines
from tests.support.orchestration import client_for, drain_dispatch

# Operations a machine key may call whatever machine the request names, because they act on no
# machine's work. Each is still called below, and its answer must not show B's work.
OPEN_TO_ANY_MACHINE = {
    # no API key: health, Telegram's and GitHub's webhooks (their own secrets), the console (its own
    # session cookie)
    "GET /health", "POST /telegram/webhook", "POST /webhooks/github",
    # what any key may read: the deployment, the API's description, which machines there are
    "GET /api/status", "GET /openapi.json", "GET /api/machines",
    # MCP checks each tool as the REST route it stands for (tests/integration/mcp/test_mcp_machine_scope.py)
    "POST /mcp", "GET /mcp", "DELETE /mcp",
    # project knowledge shared by every machine of the deployment: memories, the graph, lessons, rules,
    # Claude Code sessions and their tool approvals, encrypted file sync
    "POST /api/memory", "GET /api/memory", "POST /api/memory/batch", "POST /api/memory/code-change",
    "POST /api/memory/index", "GET /api/memory/search", "GET /api/memory/recent", "GET /api/memory/stats",
    "GET /api/memory/{memory_id}", "DELETE /api/memory/{memory_id}", "GET /api/memory/recall",
    "POST /api/memory/import-rules", "GET /api/memory/phases", "GET /api/memory/check",
    "POST /api/memory/{memory_id}/tags", "POST /api/memory/{memory_id}/restore", "GET /api/memory/export",
    "GET /api/memory/snapshots", "GET /api/memory/profiles",
    "GET /api/graph/context", "GET /api/graph/entities", "GET /api/graph/entities/{node_id}",
    "POST /api/graph/supersede", "POST /api/graph/edges", "POST /api/graph/ingest",
    "GET /api/graph/contradictions", "POST /api/graph/contradictions/{contradiction_id}/resolve",
    "GET /api/graph/traces/{trace_id}",
    "POST /api/session/event", "POST /api/session/edit", "POST /api/session/complete",
    "GET /api/session/briefing", "POST /api/session/extract-insights", "GET /api/project/learnings",
    "GET /api/rules", "POST /api/memory-tool",
    "POST /api/project/rules", "POST /api/lessons/outcome", "GET /api/lessons",
    "GET /api/lessons/{lesson_id}", "POST /api/lessons/{lesson_id}/feedback",
    "POST /api/approvals", "GET /api/approvals/{approval_id}",
    "GET /api/sync/pull", "GET /api/sync/files",
    # subagent profiles: the deployment's configuration, on no machine
    "GET /api/agents/profiles", "GET /api/agents/profiles/{name}",
}
# A Claude Code session's briefing names its project's active tasks, whichever machine runs them.
SHOWS_PROJECT_TASKS = {"GET /api/session/briefing"}


class _Requests:
    """Requests built from the OpenAPI document: B's resources in the path, B named in body and query."""

    def __init__(self, doc: dict[str, Any], ids: dict[str, str]) -> None:
        self.doc, self.ids = doc, ids

    def path_value(self, path: str, name: str) -> str:
        if name == "machine_id":
            return B
        if name == "run_id":
            return self.ids["ssh_run" if path.startswith("/api/ssh/") else "agent_run"]
        if name == "name":
            return "box-b" if path.startswith("/api/ssh/") else "researcher"
        return self.ids.get(name.removesuffix("_id"), str(uuid.uuid4()))

    def example(self, schema: dict[str, Any], name: str = "") -> Any:
        if "$ref" in schema:
            schema = self.doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        if name in ("machine", "machine_id"):
            return B
        if name in ("run_id", "parent_run_id"):
            return self.ids["agent_run"]
        if name == "project":
            return "proj"
        choices = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
        if choices:
            return self.example(choices[0], name)
        kind = schema.get("type")
        if "enum" in schema:
            return schema["enum"][0]
        if kind == "object" or "properties" in schema:
            props = schema.get("properties", {})
            wanted = set(schema.get("required", ())) | {p for p in props if p in (
                "machine", "machine_id", "parent_run_id", "run_id", "project")}
            return {p: self.example(props[p], p) for p in sorted(wanted)}
        return {"integer": schema.get("minimum", 1), "number": 1, "boolean": False,
                "array": []}.get(str(kind), "x" * max(1, int(schema.get("minLength", 1))))

    def build(self, path: str, op: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        params = op.get("parameters", [])
        filled = path
        for p in params:
            if p["in"] == "path":
                filled = filled.replace("{" + p["name"] + "}", self.path_value(path, p["name"]))
        named = ("machine", "machine_id", "project")
        query = {p["name"]: self.example(p.get("schema", {}), p["name"]) for p in params
                 if p["in"] == "query" and (p.get("required") or p["name"] in named)}
        content = op.get("requestBody", {}).get("content", {}).get("application/json")
        return filled, query, self.example(content["schema"]) if content else None


@pytest.fixture
def machines(api: RunningApi) -> MachinesWork:
    return two_machines(api)


def test_no_operation_lets_a_machine_key_act_on_another_machines_work(
        api: RunningApi, machines: MachinesWork) -> None:
    admin, key_a, _, ids = machines
    doc = admin.get("/openapi.json")
    requests = _Requests(doc, ids)
    operations = [(method.upper(), path, op) for path, item in doc["paths"].items()
                  for method, op in item.items()]
    assert len(operations) > 100
    acted: list[str] = []
    for method, path, op in operations:
        route = f"{method} {path}"
        filled, query, body = requests.build(path, op)
        status, answer = call(api.url, key_a, method, filled, query, body)
        if route in OPEN_TO_ANY_MACHINE or path.startswith("/console"):
            shown = [name for name, ident in ids.items() if ident in answer]
            if 200 <= status < 300 and shown and route not in SHOWS_PROJECT_TASKS:
                acted.append(f"{route} -> {status}, shows B's {shown}")
        elif status != 403:
            acted.append(f"{route} -> {status} {answer[:160]}")
    assert not acted, "machine A's key acted on machine B's work:\n" + "\n".join(acted)
    assert {f"{m} {p}" for m, p, _ in operations} >= OPEN_TO_ANY_MACHINE


def test_a_machine_keys_new_work_goes_to_its_machine_and_its_lists_show_only_its_own(
        api: RunningApi, machines: MachinesWork) -> None:
    admin, key_a, key_b, ids = machines
    a, b = client_for(api.url, key_a), client_for(api.url, key_b)

    mine = a.post("/api/tasks", {"project": "proj", "description": "runs where it was asked"})
    assert mine["target_machine"] == A
    session = a.post("/api/sessions", {"prompt": "hi", "project": "proj"})
    assert session["machine_id"] == A
    drain_dispatch(api.container)
    listed = [t["id"] for t in a.get("/api/tasks", project="proj")["tasks"]]
    assert mine["id"] in listed and ids["task"] not in listed and ids["agent_run_task"] not in listed
    assert [s["id"] for s in a.get("/api/sessions")["sessions"]] == [session["id"]]

    # B's key does what A's may not, on its own work
    assert b.get(f"/api/tasks/{ids['task']}")["machine_id"] == B
    assert b.post(f"/api/sessions/{ids['session']}/input", {"text": "go on"})["seq"] >= 1
    assert b.get(f"/api/agents/runs/{ids['agent_run']}")["id"] == ids["agent_run"]
    assert {t["id"] for t in admin.get("/api/tasks", project="proj")["tasks"]} >= {mine["id"], ids["task"]}
