"""`itachi memory check|profile|snapshot`: integrity, profiles and snapshots of a project's memory."""

from __future__ import annotations

import argparse
from typing import Any


def add_verbs(verbs: Any, guarded: Any) -> None:
    """Register the admin verbs on `itachi memory` (each run through `guarded`)."""
    check = verbs.add_parser("check", help="count missing or foreign vectors, duplicates, loops, orphans")
    check.add_argument("--project")
    check.add_argument("--fix", action="store_true", help="repair what is safe, say what is left")
    check.set_defaults(func=guarded(cmd_check))


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
