"""Run one MCP tool call: check the arguments against the tool's schema, call the backend, render.

A bad argument, an unknown tool or a refusal from the API is a tool error the model can read
and correct (`ToolAnswer.is_error`), never an exception: the MCP session stays up.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalicelib.contracts.mcp_tools import RESOURCES, TOOLS_BY_NAME, ResourceSpec
from chalicelib.mcp.domain import graph_answers
from chalicelib.mcp.domain import tool_answers as render
from chalicelib.mcp.services.api_backend import ApiBackend
from chalicelib.mcp.services.ports import BackendError, Json

MAX_EVENTS = 8
NO_PROJECT = ("no project: pass `project` (a project id such as github.com/acme/app); this server "
              "has no working directory to take it from")


@dataclass(frozen=True)
class ToolAnswer:
    text: str
    is_error: bool = False


# (tool, its arguments, the project it would act on) -> why the caller's key may not, or None
Permit = Callable[[str, dict[str, Any], str | None], str | None]


class ToolInputError(Exception):
    """Arguments the tool cannot run with; the message says what to change."""


@functools.cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator  # lazy: only tool calls need it

    return Draft202012Validator(TOOLS_BY_NAME[name].input_schema)


def check_arguments(name: str, arguments: dict[str, Any]) -> None:
    """Raise ToolInputError naming each argument that breaks the tool's input schema."""
    errors = sorted(_validator(name).iter_errors(arguments), key=lambda e: list(e.path))
    if errors:
        problems = "; ".join(
            (f"{'.'.join(map(str, e.path))}: " if e.path else "") + e.message for e in errors[:5])
        raise ToolInputError(f"invalid arguments for {name}: {problems}")


class McpTools:
    """Itachi's MCP tools over one backend; `default_project` is used when a call names none."""

    def __init__(self, backend: ApiBackend, default_project: str | None = None,
                 permit: Permit | None = None, own_run: str | None = None) -> None:
        self._backend = backend
        self._default_project = default_project
        self._permit = permit
        self._own_run = own_run  # the subagent run whose engine this server serves, if any
        self._handlers: dict[str, Callable[[dict[str, Any]], ToolAnswer]] = {
            "memory_search": self._search, "memory_store": self._store, "memory_list": self._list,
            "memory_get": self._get, "memory_forget": self._forget, "memory_status": self._status,
            "rules_list": self._rules, "task_create": self._create_task,
            "task_status": self._task_status, "task_list": self._task_list,
            "agent_spawn": self._agent_spawn, "agent_message": self._agent_message,
            "manage_cron": self._manage_cron, "graph_recall": self._graph_recall,
            "graph_contradictions": self._graph_contradictions,
        }

    @property
    def default_project(self) -> str | None:
        return self._default_project

    def call(self, name: str, arguments: dict[str, Any] | None) -> ToolAnswer:
        """Run tool `name`; every expected failure comes back as an error answer."""
        handler = self._handlers.get(name)
        if handler is None:
            return ToolAnswer(f"unknown tool {name!r}; the tools are: {', '.join(self._handlers)}", True)
        try:
            args = dict(arguments or {})
            check_arguments(name, args)
            self._check_permit(name, args, args.get("project"))
            return handler(args)
        except ToolInputError as exc:
            return ToolAnswer(str(exc), True)
        except BackendError as exc:
            return ToolAnswer(f"{name} failed: {exc.message}", True)

    def resources(self) -> tuple[ResourceSpec, ...]:
        """The resources this server can read: none without a project to read them for."""
        return RESOURCES if self._default_project else ()

    def read_resource(self, uri: str) -> str:
        """The markdown of one resource; BackendError or ToolInputError when it cannot be read."""
        project = self._project({})
        self._check_permit("resources/read", {}, project)
        if uri == "itachi://project/rules":
            return render.rules_text(self._backend.rules(project, 15))
        if uri == "itachi://project/briefing":
            return render.briefing_text(self._backend.briefing(project))
        raise ToolInputError(f"unknown resource {uri!r}")

    def _check_permit(self, tool: str, args: dict[str, Any], project: str | None) -> None:
        refused = self._permit(tool, args, project or self._default_project) if self._permit else None
        if refused:
            raise ToolInputError(refused)

    def _project(self, args: dict[str, Any]) -> str:
        project = args.get("project") or self._default_project
        if not project:
            raise ToolInputError(NO_PROJECT)
        return str(project)

    def _search(self, args: dict[str, Any]) -> ToolAnswer:
        project = self._project(args)
        answer = self._backend.search(query=args["query"], project=project, limit=args.get("limit", 8),
                                      category=args.get("category"), mode=args.get("mode", "hybrid"))
        return ToolAnswer(render.search_text(answer, args["query"], project))

    def _store(self, args: dict[str, Any]) -> ToolAnswer:
        project, category = self._project(args), args.get("category", "fact")
        # An MCP caller is an agent: `origin` labels whose words these are; the key decides trust.
        answer = self._backend.store(project=project, content=args["content"], category=category,
                                     tags=list(args.get("tags") or []), source=args.get("origin", "agent"))
        return ToolAnswer(render.stored_text(answer, project, category, args.get("origin", "agent")))

    def _list(self, args: dict[str, Any]) -> ToolAnswer:
        project = self._project(args)
        answer = self._backend.recent(project=project, category=args.get("category"),
                                      tag=args.get("tag"), limit=args.get("limit", 10))
        return ToolAnswer(render.list_text(answer, project, args.get("category"), args.get("tag")))

    def _get(self, args: dict[str, Any]) -> ToolAnswer:
        memory = self._backend.get_memory(args["id"])
        return ToolAnswer(render.memory_text(memory))

    def _forget(self, args: dict[str, Any]) -> ToolAnswer:
        answer = self._backend.forget(args["id"])
        return ToolAnswer(f"Forgot memory {answer.get('id')}.")

    def _status(self, args: dict[str, Any]) -> ToolAnswer:
        stats = self._backend.memory_stats(self._project(args))
        try:
            deployment: Json | None = self._backend.deployment()
        except BackendError:
            deployment = None  # the counts are still worth answering with
        return ToolAnswer(render.status_text(stats, deployment))

    def _rules(self, args: dict[str, Any]) -> ToolAnswer:
        answer = self._backend.rules(self._project(args), args.get("limit", 15), args.get("as_of"))
        return ToolAnswer(render.rules_text(answer))

    def _create_task(self, args: dict[str, Any]) -> ToolAnswer:
        task = self._backend.create_task(project=self._project(args), description=args["description"],
                                         repo=args.get("repo"), engine=args.get("engine"),
                                         machine=args.get("machine"))
        return ToolAnswer(f"Queued task {task.get('id')} in {task.get('project')} "
                          f"(status {task.get('status')}); follow it with task_status.")

    def _task_status(self, args: dict[str, Any]) -> ToolAnswer:
        task = self._backend.get_task(args["id"])
        events = self._backend.task_events(str(task["id"]), limit=1000).get("events") or []
        latest = [e for e in events if isinstance(e, dict)][-MAX_EVENTS:]
        return ToolAnswer(render.task_text(task, latest))

    def _task_list(self, args: dict[str, Any]) -> ToolAnswer:
        project = self._project(args)
        answer = self._backend.list_tasks(project=project, status=args.get("status"),
                                          limit=args.get("limit", 10))
        return ToolAnswer(render.tasks_text(answer, project, args.get("status")))

    def _agent_spawn(self, args: dict[str, Any]) -> ToolAnswer:
        body = {"profile": args["profile"], "prompt": args["task"], "project": self._project(args),
                "repo": args.get("repo"), "machine": args.get("machine"),
                "parent_run_id": args.get("parent_run") or self._own_run}
        run = self._backend.spawn_agent({k: v for k, v in body.items() if v is not None})
        return ToolAnswer(f"Spawned {run.get('profile')} run {run.get('id')} (task {run.get('task_id')}); "
                          f"message it with agent_message.")

    def _agent_message(self, args: dict[str, Any]) -> ToolAnswer:
        if bool(args.get("run")) == bool(args.get("profile")):
            raise ToolInputError("name either a run or a profile")
        sender = args.get("sender") or (f"run:{self._own_run[:8]}" if self._own_run else "user")
        sent = self._backend.message_agent(run=args.get("run"), profile=args.get("profile"),
                                           body=args["message"], sender=sender)
        how = {"relayed": "relayed to its running engine for its next turn",
               "waiting": "kept for the run's first turn", "follow_up": "given to a follow-up run",
               "new_run": "started as a new run"}.get(str(sent.get("delivery")), str(sent.get("delivery")))
        return ToolAnswer(f"Message {sent.get('message', {}).get('seq')} to run {sent.get('run_id')}: {how}.")

    def _manage_cron(self, args: dict[str, Any]) -> ToolAnswer:
        mine = self._own_run if not args.get("run") and not args.get("profile") else None  # itself
        body = {"schedule": args["schedule"], "prompt": args["prompt"], "profile": args.get("profile"),
                "run_id": args.get("run") or mine, "project": args.get("project") or self._default_project,
                "until": args.get("until")}
        job = self._backend.add_cron({k: v for k, v in body.items() if v is not None})
        return ToolAnswer(f"Scheduled {job.get('profile')} job {job.get('id')} ({job.get('schedule')} UTC); "
                          f"next run {job.get('next_fire_at')}.")

    def _graph_recall(self, args: dict[str, Any]) -> ToolAnswer:
        project, deep = self._project(args), bool(args.get("deep", True))
        answer = self._backend.graph_context(project=project, query=args["query"], deep=deep)
        return ToolAnswer(graph_answers.recall_text(answer, args["query"], project, deep))

    def _graph_contradictions(self, args: dict[str, Any]) -> ToolAnswer:
        project, status = self._project(args), args.get("status", "open")
        answer = self._backend.graph_contradictions(project=project, status=status,
                                                    limit=args.get("limit", 10))
        return ToolAnswer(graph_answers.contradictions_text(answer, project, status))
