"""`itachi namespace create|list|add|remove|promote`: named sets of projects sharing memories and rules."""

from __future__ import annotations

import argparse
import json
from typing import Any
from urllib.parse import quote, urlencode


def add_namespace_parser(sub: Any) -> None:
    p = sub.add_parser("namespace", help="share memories and rules across a set of projects (admin key)")
    verbs = p.add_subparsers(dest="namespace_command", metavar="VERB", required=True)
    create = verbs.add_parser("create", help="create a namespace of these projects")
    create.add_argument("name", help="1-63 lower-case letters, digits or _.-, e.g. acme")
    create.add_argument("--project", action="append", dest="projects", metavar="PROJECT", default=[],
                        help="a member project (repeat for more)")
    create.set_defaults(func=cmd_create)
    listing = verbs.add_parser("list", help="list the namespaces and their projects")
    listing.add_argument("--json", action="store_true", help="print the API's JSON answer")
    listing.set_defaults(func=cmd_list)
    for verb, helped in (("add", "add member projects"), ("remove", "take member projects out")):
        change = verbs.add_parser(verb, help=helped)
        change.add_argument("name")
        change.add_argument("projects", nargs="+", metavar="PROJECT")
        change.set_defaults(func=cmd_add if verb == "add" else cmd_remove)
    promote = verbs.add_parser("promote", help="move a member project's rule up to the namespace")
    promote.add_argument("rule_id", help="the rule's id (itachi memory list --category project_rule)")
    promote.add_argument("name", help="the namespace")
    promote.set_defaults(func=cmd_promote)


def _run(action: str, method: str, path: str, body: Any = None, **params: Any) -> Any:
    from chalicelib.contracts.api_transport import ApiClient, ApiError

    client = ApiClient.configured()
    try:
        if method == "GET":
            return client.get(path, **params)
        if method == "DELETE":
            return client.delete(f"{path}?{urlencode(params)}" if params else path)
        return client.post(path, body)
    except ApiError as exc:
        print(f"cannot {action}: {exc.message}")
        return None


def describe(namespace: dict[str, Any]) -> str:
    members = ", ".join(namespace.get("projects") or []) or "(no projects)"
    return f"{namespace['name']:<20} {members}"


def _path(name: str) -> str:
    return f"/api/namespaces/{quote(name, safe='')}"


def _print(answer: Any) -> int:
    if answer is None:
        return 1
    print(describe(answer))
    return 0


def cmd_create(args: argparse.Namespace) -> int:
    return _print(_run("create the namespace", "POST", "/api/namespaces",
                       {"name": args.name, "projects": args.projects}))


def cmd_list(args: argparse.Namespace) -> int:
    answer = _run("list namespaces", "GET", "/api/namespaces")
    if answer is None:
        return 1
    namespaces = answer["namespaces"]
    if args.json:
        print(json.dumps(namespaces, indent=2))
        return 0
    for namespace in namespaces:
        print(describe(namespace))
    if not namespaces:
        print("No namespaces (itachi namespace create NAME --project A --project B).")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    return _print(_run("add the projects", "POST", f"{_path(args.name)}/projects",
                       {"projects": args.projects}))


def cmd_remove(args: argparse.Namespace) -> int:
    answer: Any = None
    for project in args.projects:
        answer = _run(f"remove {project}", "DELETE", f"{_path(args.name)}/projects", project=project)
        if answer is None:
            return 1
    return _print(answer)


def cmd_promote(args: argparse.Namespace) -> int:
    promoted = _run("promote the rule", "POST", f"{_path(args.name)}/rules", {"rule_id": args.rule_id})
    if promoted is None:
        return 1
    origin = promoted["promoted_from"]["project"]
    print(f"{promoted['id']}: {promoted['rule']}\n  now a rule of {args.name} (from {origin}; "
          f"its copy in {origin} is retired)")
    return 0
