"""`itachi agents`: subagent profiles, runs, messages, feedback and cron jobs from a terminal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def add_agents_parser(sub: Any) -> None:
    p = sub.add_parser("agents", help="subagents: profiles, runs, messages, cron (itachi agents --help)")
    verbs = p.add_subparsers(dest="agents_verb", required=True)
    profile = verbs.add_parser("profile", help="add, list, show or remove profiles")
    pv = profile.add_subparsers(dest="profile_verb", required=True)
    add = pv.add_parser("add", help="add or replace a profile of your own")
    add.add_argument("name")
    add.add_argument("--prompt", help="the system prompt (or --prompt-file)")
    add.add_argument("--prompt-file", type=Path)
    add.add_argument("--description", default="")
    add.add_argument("--engine", choices=["claude", "codex", "gemini"])
    add.add_argument("--model")
    add.add_argument("--permission-mode", choices=["default", "acceptEdits", "plan", "bypassPermissions"])
    add.add_argument("--tools", default="", help="allowed tools, comma separated (e.g. Read,Grep,Bash)")
    add.add_argument("--budget", type=int, default=1800, help="time budget in seconds")
    add.add_argument("--cost", type=float, help="cost budget in USD")
    add.add_argument("--machine", help="default machine")
    pv.add_parser("list", help="built-in and your profiles")
    for verb in ("show", "rm"):
        pv.add_parser(verb).add_argument("name")
    spawn = verbs.add_parser("spawn", help="start a run: itachi agents spawn code-reviewer 'review the PR'")
    spawn.add_argument("profile")
    spawn.add_argument("task")
    for flag in ("--project", "--repo", "--machine"):
        spawn.add_argument(flag)
    spawn.add_argument("--budget", type=int)
    verbs.add_parser("list", help="active runs").add_argument("--all", action="store_true")
    for verb in ("show", "cancel", "messages"):
        verbs.add_parser(verb).add_argument("run")
    message = verbs.add_parser("message", help="message a run (or --profile NAME)")
    message.add_argument("run", nargs="?")
    message.add_argument("text")
    message.add_argument("--profile")
    feedback = verbs.add_parser("feedback", help="rate a run: good|bad [note]")
    feedback.add_argument("run")
    feedback.add_argument("verdict", choices=["good", "bad"])
    feedback.add_argument("note", nargs="?")
    cron = verbs.add_parser("cron", help="list, add or remove cron jobs")
    cv = cron.add_subparsers(dest="cron_verb", required=True)
    cv.add_parser("list").add_argument("--profile")
    cron_add = cv.add_parser("add", help="itachi agents cron add researcher '0 9 * * mon' 'read the notes'")
    cron_add.add_argument("profile")
    cron_add.add_argument("schedule")
    cron_add.add_argument("prompt")
    cron_add.add_argument("--until", help="ISO 8601 time with a zone")
    cv.add_parser("rm").add_argument("job")
    p.set_defaults(func=cmd_agents)


def cmd_agents(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiClient, ApiError

    client = ApiClient.configured()
    try:
        return _run(client, args)
    except ApiError as exc:
        print(f"itachi agents: {exc.message}", file=sys.stderr)
        return 1


def _run(client: Any, args: argparse.Namespace) -> int:
    verb = args.agents_verb
    if verb == "profile":
        return _profile(client, args)
    if verb == "cron":
        return _cron(client, args)
    if verb == "spawn":
        body = {"profile": args.profile, "prompt": args.task, "project": args.project, "repo": args.repo,
                "machine": args.machine, "time_budget_s": args.budget}
        run = client.post("/api/agents/runs", {k: v for k, v in body.items() if v is not None})
        print(f"{run['profile']} run {run['id'][:8]} started (task {str(run['task_id'])[:8]})")
    elif verb == "list":
        runs = client.get("/api/agents/runs", **({} if args.all else {"status": "active"}))["runs"]
        for run in runs:
            print(f"{run['id'][:8]}  {run['profile']:<16} {run['status']:<10} {run['prompt'][:60]}")
        if not runs:
            print("no active runs" if not args.all else "no runs")
    elif verb == "show":
        run = client.get(f"/api/agents/runs/{args.run}")
        for key in ("id", "profile", "status", "task_status", "task_id", "origin", "prompt", "result_summary",
                    "stop_reason", "cost_usd"):
            if run.get(key) is not None:
                print(f"{key}: {run[key]}")
    elif verb == "cancel":
        print(f"run {client.post(f'/api/agents/runs/{args.run}/cancel')['id'][:8]}: cancel requested")
    elif verb == "message":
        target = f"profiles/{args.profile}" if args.profile else f"runs/{args.run}"
        sent = client.post(f"/api/agents/{target}/messages", {"body": args.text})
        print(f"message {sent['message']['seq']} to run {sent['run_id'][:8]}: {sent['delivery']}")
    elif verb == "messages":
        for m in client.get(f"/api/agents/runs/{args.run}/messages")["messages"]:
            print(f"{m['seq']}. [{m['status']}] {m['sender']}: {m['body']}")
    else:
        body = {"good": args.verdict == "good", **({"note": args.note} if args.note else {})}
        print(f"{len(client.post(f'/api/agents/runs/{args.run}/feedback', body)['lessons'])} lessons moved")
    return 0


def _profile(client: Any, args: argparse.Namespace) -> int:
    if args.profile_verb == "list":
        for p in client.get("/api/agents/profiles")["profiles"]:
            print(f"{p['name']:<16} {'built-in' if p['builtin'] else 'user':<9} {p['description']}")
    elif args.profile_verb == "show":
        profile = client.get(f"/api/agents/profiles/{args.name}")
        for key in ("name", "description", "engine", "model", "permission_mode", "allowed_tools",
                    "time_budget_s", "cost_budget_usd", "default_machine", "system_prompt"):
            print(f"{key}: {profile[key]}")
        for lesson in profile["lessons"]:
            print(f"  lesson ({lesson['confidence']:.2f}): {lesson['content']}")
    elif args.profile_verb == "rm":
        client.delete(f"/api/agents/profiles/{args.name}")
        print(f"removed {args.name}")
    else:
        prompt = args.prompt_file.read_text() if args.prompt_file else args.prompt
        if not prompt:
            print("itachi agents profile add: give --prompt or --prompt-file", file=sys.stderr)
            return 2
        body = {"name": args.name, "system_prompt": prompt, "description": args.description,
                "engine": args.engine, "model": args.model, "permission_mode": args.permission_mode,
                "allowed_tools": [t.strip() for t in args.tools.split(",") if t.strip()],
                "time_budget_s": args.budget, "cost_budget_usd": args.cost, "default_machine": args.machine}
        saved = client.post("/api/agents/profiles", {k: v for k, v in body.items() if v is not None})
        print(f"saved profile {saved['name']}")
    return 0


def _cron(client: Any, args: argparse.Namespace) -> int:
    if args.cron_verb == "list":
        query = {"profile": args.profile} if args.profile else {}
        for job in client.get("/api/agents/cron", **query)["jobs"]:
            state = f"next {job['next_fire_at']}" if job["enabled"] else "done"
            print(f"{job['id'][:8]}  {job['profile']:<16} {job['schedule']:<14} {state}  "
                  f"{job['prompt'][:50]}")
    elif args.cron_verb == "rm":
        client.delete(f"/api/agents/cron/{args.job}")
        print(f"removed {args.job}")
    else:
        body = {"profile": args.profile, "schedule": args.schedule, "prompt": args.prompt,
                "until": args.until}
        job = client.post("/api/agents/cron", {k: v for k, v in body.items() if v is not None})
        print(f"cron job {job['id'][:8]}: next run {job['next_fire_at']}")
    return 0
