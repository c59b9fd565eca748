"""`itachi task`, `itachi tasks`, `itachi machines`: create and follow tasks from a terminal."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

TERMINAL = {"completed", "failed", "cancelled", "timed_out"}


def add_task_parser(sub: Any) -> None:
    p = sub.add_parser("task", help="run a coding task on an agent machine")
    p.add_argument("description", help="what to do")
    p.add_argument("--project", help="project id (default: this directory's project)")
    p.add_argument("--repo", help="repo path on the agent machine, or a git URL (default: this repo)")
    p.add_argument("--engine", choices=["claude", "codex", "gemini"])
    p.add_argument("--machine", help="run on this machine only")
    p.add_argument("--budget", type=int, default=1800, help="time budget in seconds (default 1800)")
    p.add_argument("--wait", action="store_true", help="follow the task's progress until it ends")
    p.set_defaults(func=cmd_task)


def add_tasks_parser(sub: Any) -> None:
    p = sub.add_parser("tasks", help="list recent tasks")
    p.add_argument("--status")
    p.add_argument("--project")
    p.add_argument("--limit", type=int, default=20)
    p.set_defaults(func=cmd_tasks)


def add_machines_parser(sub: Any) -> None:
    from agent.commands.join_commands import add_invite_verb

    p = sub.add_parser("machines", help="list agent machines and whether they are online (or invite one)")
    p.set_defaults(func=cmd_machines)
    add_invite_verb(p)


def _client() -> Any:
    from chalicelib.contracts.api_transport import ApiClient

    return ApiClient.configured()


def _defaults(args: argparse.Namespace) -> tuple[str, str | None]:
    from agent.tasks.worktrees import git
    from chalicelib.contracts.project_identity import project_for
    from chalicelib.contracts.repo_source import looks_remote

    repo = args.repo
    if repo and not looks_remote(repo):
        repo = str(Path(repo).expanduser().resolve())
    if repo is None:
        try:
            repo = git(Path.cwd(), "rev-parse", "--show-toplevel")
        except Exception:  # not inside a git repository: the agent resolves the project
            repo = None
    return args.project or project_for(repo or os.getcwd()), repo


def cmd_task(args: argparse.Namespace) -> int:
    from chalicelib.contracts.agent_api import NewTaskRequest
    from chalicelib.contracts.api_transport import ApiError

    project, repo = _defaults(args)
    new = NewTaskRequest(args.description, project, repo, args.engine, args.machine, args.budget)
    try:
        task = _client().post("/api/tasks", new.to_body())
    except ApiError as exc:
        print(f"task not created: {exc.message}", file=sys.stderr)
        return 1
    print(f"task {task['id'][:8]} queued ({project})")
    return follow(task["id"]) if args.wait else 0


def follow(task_id: str, *, poll_s: float = 1.0) -> int:
    """Print the task's events as they arrive; exit 0 if it completed."""
    client, after = _client(), 0
    while True:
        page = client.get(f"/api/tasks/{task_id}/events", after=after)
        for event in page["events"]:
            if event["text"]:
                print(f"[{event['kind']}] {event['text']}", flush=True)
        after = page["next_after"]
        if page["status"] in TERMINAL and not page["events"]:
            task = client.get(f"/api/tasks/{task_id}")
            print(f"task {task_id[:8]} {task['status']}"
                  + (f" on {task['branch']}" if task.get("branch") else ""))
            return 0 if task["status"] == "completed" else 1
        time.sleep(poll_s)


def cmd_tasks(args: argparse.Namespace) -> int:
    tasks = _client().get("/api/tasks", status=args.status, project=args.project, limit=args.limit)["tasks"]
    for t in tasks:
        print(f"{t['id'][:8]}  {t['status']:<10} {t['project'][:24]:<24} {(t['machine_id'] or '-'):<12} "
              f"{t['description'].splitlines()[0][:60]}")
    return 0


def cmd_machines(args: argparse.Namespace) -> int:
    for m in _client().get("/api/machines")["machines"]:
        print(f"{m['id']:<20} {m['status']:<8} {m['assigned_tasks']}/{m['max_concurrent']} tasks  "
              f"engines {','.join(m['engine_priority'])}  last seen {m['seconds_since_heartbeat']:.0f}s ago")
    return 0
