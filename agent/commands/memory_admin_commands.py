"""`itachi memory check|profile|snapshot`: integrity, profiles and snapshots of a project's memory."""

from __future__ import annotations

import argparse
import os
from typing import Any

YES_HELP = "replace live memories (a snapshot is taken first)"


def add_verbs(verbs: Any, guarded: Any) -> None:
    """Register the admin verbs on `itachi memory` (each run through `guarded`)."""
    check = verbs.add_parser("check", help="count missing or foreign vectors, duplicates, loops, orphans")
    check.add_argument("--project")
    check.add_argument("--fix", action="store_true", help="repair what is safe, say what is left")
    check.set_defaults(func=guarded(cmd_check))
    profile = verbs.add_parser("profile", help="built-in datasets: list | active | load NAME | unload")
    profile.add_argument("action", choices=["list", "active", "load", "unload"])
    profile.add_argument("name", nargs="?")
    profile.add_argument("--project", help="project (default: this directory's project)")
    profile.add_argument("--yes", action="store_true", help=YES_HELP)
    profile.set_defaults(func=guarded(cmd_profile))
    snapshot = verbs.add_parser("snapshot", help="a project's memory copied and restored: "
                                "create NAME | list | load NAME")
    snapshot.add_argument("action", choices=["create", "list", "load"])
    snapshot.add_argument("name", nargs="?")
    snapshot.add_argument("--project", help="project (default: this directory's project)")
    snapshot.add_argument("--yes", action="store_true", help=YES_HELP)
    snapshot.set_defaults(func=guarded(cmd_snapshot))


def render_check(report: dict[str, Any]) -> str:
    lines = [f"{name:<24} {'n/a' if count is None else count}" for name, count in report["counts"].items()]
    lines += [f"fixed {name}: {count}" for name, count in report.get("fixed", {}).items()]
    lines += [f"left {name}: {why}" for name, why in report.get("left", {}).items()]
    lines.append("ok: no problems" if not report["problems"] else f"problems: {report['problems']}")
    return "\n".join(lines)


def cmd_check(args: argparse.Namespace, client: Any) -> int:
    if args.fix:
        body = {"project": args.project} if args.project else {}
        report = client.post("/api/memory/check/fix", body)
    else:
        report = client.get("/api/memory/check", project=args.project)
    print(render_check(report))
    return 0


def _project(args: argparse.Namespace) -> str:
    from chalicelib.contracts.project_identity import project_for

    return str(args.project or project_for(os.getcwd()))


def _named(args: argparse.Namespace) -> str:
    if not args.name:
        raise SystemExit(f"itachi memory {args.memory_command} {args.action}: a NAME is needed")
    return str(args.name)


def cmd_profile(args: argparse.Namespace, client: Any) -> int:
    project = _project(args)
    if args.action in ("list", "active"):
        answer = client.get("/api/memory/profiles", project=project)
        if args.action == "list":
            for name, size in answer["profiles"].items():
                print(f"{name:<16} {size} items" + ("  (active)" if name == answer["profile"] else ""))
        else:
            print(f"{project}: profile {answer['profile'] or '(none)'}, {answer['memories']} memories")
        return 0
    if args.action == "load":
        answer = client.post("/api/memory/profiles/load", {"project": project, "name": _named(args),
                                                           "yes": args.yes})
        print(f"loaded {answer['profile']} into {project}: {answer['memories']} memories" + _safety(answer))
        return 0
    answer = client.post("/api/memory/profiles/unload", {"project": project, "yes": args.yes})
    print(f"unloaded {project}" + _safety(answer))
    return 0


def cmd_snapshot(args: argparse.Namespace, client: Any) -> int:
    project = _project(args)
    if args.action == "list":
        snaps = client.get("/api/memory/snapshots", project=project)["snapshots"]
        for snap in snaps:
            auto = " (automatic)" if snap["automatic"] else ""
            count = snap["counts"].get("memories", 0)
            print(f"{snap['name']:<32} {snap['created_at']}  {count} memories{auto}")
        if not snaps:
            print("No snapshots.")
        return 0
    name = _named(args)
    if args.action == "create":
        answer = client.post("/api/memory/snapshots", {"project": project, "name": name})
        print(f"snapshot {name} of {project}: {answer['counts'].get('memories', 0)} memories")
        return 0
    answer = client.post("/api/memory/snapshots/load", {"project": project, "name": name, "yes": args.yes})
    print(f"loaded snapshot {name} into {project}: {answer['counts'].get('memories', 0)} memories"
          + _safety(answer))
    return 0


def _safety(answer: dict[str, Any]) -> str:
    return f" (the memories it replaced are in snapshot {answer['safety_snapshot']})" \
        if answer.get("safety_snapshot") else ""
