"""Who may call which route: the one table of the key model, and the decision for one request.

Routes are named by method and resource path (`POST /api/tasks/{task_id}/claim`). A route is in
one area: `agent` (a machine's agent: machine keys for their own machine, admin keys), `client`
(hooks, MCP, the CLI's memory and task verbs: client and machine keys within their projects,
admin keys) or `admin` (everything else, the default: a route missing from the table is admin
only). Read-only keys may only read (`GET`; `/mcp` refuses its write tools itself). A machine key
acts on its own machine's work only, on every route (`machine_scope.py`). An MCP tool is allowed
exactly when the REST routes it stands for would be (`TOOL_ROUTES`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from chalicelib.auth.domain.api_keys import KeyKind, Principal
from chalicelib.auth.domain.machine_scope import MachineOf, machine_refusal


class Area(StrEnum):
    AGENT = "agent"
    CLIENT = "client"
    ADMIN = "admin"


class ProjectRule(StrEnum):
    NAMED = "named"  # the request names its project(s): a limited key must name its own
    READ_BY_ID = "read_by_id"  # the answer names the project: checked on the way out
    WRITE_BY_ID = "write_by_id"  # neither: a key limited to projects may not call it
    NONE = "none"  # no project's data


@dataclass(frozen=True)
class Rule:
    area: Area
    projects: ProjectRule = ProjectRule.NONE


_AGENT = Rule(Area.AGENT)
_N, _R, _W = Rule(Area.CLIENT, ProjectRule.NAMED), Rule(Area.CLIENT, ProjectRule.READ_BY_ID), Rule(
    Area.CLIENT, ProjectRule.WRITE_BY_ID)
_AGENT_ROUTES = (
    "POST /api/tasks/{task_id}/claim", "POST /api/tasks/{task_id}/lease", "POST /api/tasks/{task_id}/events",
    "POST /api/tasks/{task_id}/engine-switch", "POST /api/tasks/{task_id}/result",
    "POST /api/tasks/{task_id}/outcome", "POST /api/tasks/{task_id}/release", "POST /api/machines/heartbeat",
    "POST /api/machines/{machine_id}/credentials",
    "POST /api/sessions/{session_id}/claim", "POST /api/sessions/{session_id}/events",
    "POST /api/sessions/{session_id}/ended", "POST /api/sessions/{session_id}/engine-switch",
    "GET /api/sessions/{session_id}/files/{seq}/{index}", "GET /api/tasks/{task_id}/files/{seq}/{index}",
    "POST /api/machines/{machine_id}/folders/{listing_id}", "POST /api/ssh/runs/{run_id}/claim",
    "POST /api/machines/{machine_id}/resumable/{listing_id}",
    "POST /api/ssh/runs/{run_id}/output", "POST /api/ssh/runs/{run_id}/result", "POST /api/ssh/targets",
    "DELETE /api/ssh/targets/{name}")
RULES: dict[str, Rule] = {
    **{route: _AGENT for route in _AGENT_ROUTES},
    # memory
    "POST /api/memory": _N, "POST /api/memory/batch": _N, "POST /api/memory/code-change": _N,
    "POST /api/memory/index": _N, "GET /api/memory/search": _N, "GET /api/memory/recent": _N,
    "GET /api/memory/stats": _N, "GET /api/memory/{memory_id}": _R, "DELETE /api/memory/{memory_id}": _W,
    "GET /api/memory/recall": _N, "POST /api/memory/import-rules": _N,
    # Claude's memory tool (view, create, str_replace, insert, delete, rename) on a project's files
    "POST /api/memory-tool": _N,
    # tool approvals: a hook asks, then polls; the decision is a person's, in Telegram
    "POST /api/approvals": _N, "GET /api/approvals/{approval_id}": _R,
    # memory lifecycle: listing, tags, restore, counts (eviction runs and repairs are admin's)
    "GET /api/memory": _N, "GET /api/memory/phases": _N, "GET /api/memory/check": _N,
    "POST /api/memory/{memory_id}/tags": _W, "POST /api/memory/{memory_id}/restore": _W,
    "GET /api/memory/export": _N, "GET /api/memory/snapshots": _N, "GET /api/memory/profiles": _N,
    # graph memory (resolving a contradiction and reading a trace name their project in the answer)
    "GET /api/graph/context": _N, "GET /api/graph/entities": _N, "GET /api/graph/entities/{node_id}": _R,
    "POST /api/graph/supersede": _N, "POST /api/graph/edges": _N, "POST /api/graph/ingest": _N,
    "GET /api/graph/contradictions": _N, "POST /api/graph/contradictions/{contradiction_id}/resolve": _W,
    "GET /api/graph/traces/{trace_id}": _R,
    # Claude Code sessions and the learning loop
    "POST /api/session/event": _N, "POST /api/session/edit": _N, "POST /api/session/complete": _N,
    "GET /api/session/briefing": _N, "POST /api/session/extract-insights": _N,
    "GET /api/rules": _N, "GET /api/project/learnings": _N, "POST /api/project/rules": _N,
    "POST /api/lessons/outcome": _N,
    "GET /api/lessons": _N, "GET /api/lessons/{lesson_id}": _R, "POST /api/lessons/{lesson_id}/feedback": _W,
    # subagents: runs and messages as any unrestricted client starts them (profiles are admin's)
    "POST /api/agents/runs": _W, "GET /api/agents/runs": _W, "GET /api/agents/runs/{run_id}": _W,
    "POST /api/agents/runs/{run_id}/cancel": _W, "POST /api/agents/runs/{run_id}/messages": _W,
    "GET /api/agents/runs/{run_id}/messages": _W, "POST /api/agents/profiles/{name}/messages": _W,
    "POST /api/agents/runs/{run_id}/feedback": _W, "POST /api/agents/runs/{run_id}/notes": _W,
    "GET /api/agents/profiles": _W, "GET /api/agents/profiles/{name}": _W, "POST /api/agents/cron": _W,
    "GET /api/agents/cron": _W,
    # tasks and interactive sessions as a user starts and follows them
    "POST /api/tasks": _N, "GET /api/tasks": _N, "GET /api/tasks/{task_id}": _R,
    "GET /api/tasks/{task_id}/events": _W, "POST /api/tasks/{task_id}/cancel": _W,
    "POST /api/sessions": _N, "GET /api/sessions": _W, "GET /api/sessions/{session_id}": _R,
    "GET /api/sessions/{session_id}/events": _W, "GET /api/sessions/{session_id}/export": _W,
    "POST /api/sessions/{session_id}/input": _W,
    "POST /api/sessions/{session_id}/close": _W,
    # file sync (ciphertext), MCP (checks its tools itself), what any key may read
    "POST /api/sync/push": _N, "GET /api/sync/pull": _N, "GET /api/sync/files": _N,
    "POST /mcp": Rule(Area.CLIENT), "GET /mcp": Rule(Area.CLIENT), "DELETE /mcp": Rule(Area.CLIENT),
    "GET /api/status": Rule(Area.CLIENT), "GET /openapi.json": Rule(Area.CLIENT),
    "GET /api/machines": Rule(Area.CLIENT),
}
_ADMIN = Rule(Area.ADMIN)


def rule_for(method: str, resource_path: str) -> Rule:
    return RULES.get(f"{method.upper()} {resource_path}", _ADMIN)


@dataclass(frozen=True)
class Refusal:
    message: str


def refusal(principal: Principal, method: str, resource_path: str, query: Mapping[str, str],
            body: Any, params: Mapping[str, str] | None = None,
            machine_of: MachineOf | None = None) -> Refusal | None:
    """Why `principal` may not make this request (None: it may). `body` is the decoded JSON body
    (anything else when there is none or it does not parse: the route will answer 400), `params`
    the path's parameters; `machine_of` finds the machine of a resource a machine key acts on."""
    if principal.is_admin:
        return None
    rule = rule_for(method, resource_path)
    if rule.area is Area.ADMIN:
        return Refusal(f"{method.upper()} {resource_path} needs an admin key")
    if rule.area is Area.AGENT:
        if principal.kind is not KeyKind.MACHINE:
            return Refusal("only a machine key (or an admin key) may act as a machine's agent")
    elif principal.read_only and method.upper() not in ("GET", "HEAD") and resource_path != "/mcp":
        return Refusal(f"the key {principal.name!r} is read-only")
    not_its_machine = machine_refusal(principal, f"{method.upper()} {resource_path}", params or {}, query,
                                      body, machine_of)
    if not_its_machine:
        return Refusal(not_its_machine)
    if principal.projects is None:
        return None
    return _project_refusal(principal, rule, query, body)


def _project_refusal(principal: Principal, rule: Rule, query: Mapping[str, str], body: Any) -> Refusal | None:
    projects = ", ".join(sorted(principal.projects or ()))
    limited = f"the key {principal.name!r} is limited to the projects {projects}"
    if principal.namespaces is not None:  # its members, listed, would say less than its namespaces
        limited += f" (of the namespaces {', '.join(sorted(principal.namespaces))})"
    if rule.projects is ProjectRule.WRITE_BY_ID:
        return Refusal(f"{limited}: call this route with a key for every project")
    if rule.projects is not ProjectRule.NAMED:
        return None
    named = set(_values(body, "project")) | ({query["project"]} if "project" in query else set())
    if not named:
        return Refusal(f"{limited}: name one of them (project)")
    if not all(principal.may_see(p) for p in named):
        return Refusal(limited)
    return None


def answer_refusal(principal: Principal, rule: Rule, answer: Any) -> Refusal | None:
    """For a by-id read: refuse an answer about a project the principal may not see."""
    if principal.projects is None or rule.projects is not ProjectRule.READ_BY_ID:
        return None
    if not isinstance(answer, dict):
        return None
    project = answer.get("project")
    if isinstance(project, str) and not principal.may_see(project):
        return Refusal(f"the key {principal.name!r} may not read the project {project!r}")
    return None


def _values(body: Any, key: str, depth: int = 2) -> Iterable[str]:
    """Every string under `key` in `body`, its lists and their objects (two levels deep)."""
    if isinstance(body, dict):
        value = body.get(key)
        if isinstance(value, str):
            yield value
        if depth:
            for item in body.values():
                if isinstance(item, list | dict):
                    yield from _values(item, key, depth - 1)
    elif isinstance(body, list) and depth:
        for item in body:
            yield from _values(item, key, depth - 1)


# Each MCP tool and the REST routes it does the work of: a call is allowed only if each route it
# would call is (for a tool with alternatives, the one whose path parameters its arguments give).
TOOL_ROUTES: dict[str, tuple[str, ...]] = {
    "memory_search": ("GET /api/memory/search",), "memory_store": ("POST /api/memory",),
    "memory_list": ("GET /api/memory/recent",), "memory_get": ("GET /api/memory/{memory_id}",),
    "memory_forget": ("DELETE /api/memory/{memory_id}",), "memory_status": ("GET /api/memory/stats",),
    "rules_list": ("GET /api/rules",), "task_create": ("POST /api/tasks",),
    "task_status": ("GET /api/tasks/{task_id}", "GET /api/tasks/{task_id}/events"),
    "task_list": ("GET /api/tasks",), "agent_spawn": ("POST /api/agents/runs",),
    "agent_message": ("POST /api/agents/runs/{run_id}/messages", "POST /api/agents/profiles/{name}/messages"),
    "manage_cron": ("POST /api/agents/cron",), "graph_recall": ("GET /api/graph/context",),
    "graph_contradictions": ("GET /api/graph/contradictions",),
    "resources/read": ("GET /api/rules", "GET /api/session/briefing"),
}
# Tool arguments as the routes name them: path parameters, and body fields the rules read.
_TOOL_PARAMS = {"id": ("memory_id", "task_id"), "run": ("run_id",), "profile": ("name",)}
_TOOL_BODY = {"machine": "machine", "parent_run": "parent_run_id", "run": "run_id"}


def tool_refusal(principal: Principal, tool: str, args: Mapping[str, Any], project: str | None,
                 machine_of: MachineOf | None = None) -> Refusal | None:
    """Why `principal` may not call the MCP tool `tool` with `args` for `project` (None: it may): the
    refusal of the REST routes the tool stands for, with the same key. A by-id read is checked on
    its answer over REST; a tool's answer is text, so a key limited to projects may not call one."""
    if principal.is_admin:
        return None
    params = {name: str(args[arg]) for arg, names in _TOOL_PARAMS.items() if args.get(arg) for name in names}
    body = {field: args[arg] for arg, field in _TOOL_BODY.items() if args.get(arg)}
    query = {"project": project} if project else {}
    # each route the tool stands for, but an alternative for arguments this call does not give
    routes = [(m, p) for m, p in (route.split(" ", 1) for route in TOOL_ROUTES.get(tool, ("POST /api/tool",)))
              if not any(f"{{{n}}}" in p and n not in params for n in ("run_id", "name"))]
    for method, path in routes:
        refused = refusal(principal, method, path, query, {**query, **body}, params, machine_of)
        if refused:
            return refused
    by_id = any(rule_for(m, p).projects is ProjectRule.READ_BY_ID for m, p in routes)
    if principal.projects is not None and by_id:
        return Refusal(f"the key {principal.name!r} is limited to the projects "
                       f"{', '.join(sorted(principal.projects))}: {tool} names no project")
    return None
