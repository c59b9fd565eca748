"""`itachi memory ...`: the memory's lifecycle from the command line.

list (by phase, tag, category), restore ID (an evicted memory back whole), tag ID (add and
remove free tags; `keep` protects from eviction), evict (one bounded run now), stats (memories
per phase). `check`, `profile` and `snapshot` register here too (memory_admin_commands).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

Handler = Callable[[argparse.Namespace, Any], int]


def _client() -> Any:
    from chalicelib.contracts.api_transport import ApiClient

    return ApiClient.configured(timeout_s=300.0)  # a profile load or a fix may take minutes


def guarded(handler: Handler) -> Callable[[argparse.Namespace], int]:
    """Run a subcommand with a configured client; an API error is one line on stderr, exit 1."""

    def run(args: argparse.Namespace) -> int:
        from chalicelib.contracts.api_transport import ApiError

        try:
            return handler(args, _client())
        except ApiError as exc:
            print(f"itachi memory {args.memory_command}: {exc.message}", file=sys.stderr)
            return 1

    return run


def add_memory_parser(sub: Any) -> None:
    from agent.commands import memory_admin_commands

    p = sub.add_parser("memory", help="memory lifecycle: list, restore, tag, evict, check, profiles, "
                       "snapshots")
    verbs = p.add_subparsers(dest="memory_command", metavar="VERB", required=True)
    ls = verbs.add_parser("list", help="memories of any phase, newest first")
    ls.add_argument("--project")
    ls.add_argument("--phase", choices=["full", "hint", "abstract", "archived"])
    ls.add_argument("--tag")
    ls.add_argument("--category")
    ls.add_argument("-l", "--limit", type=int, default=50)
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=guarded(cmd_list))
    restore = verbs.add_parser("restore", help="bring an evicted memory's original text back whole")
    restore.add_argument("id")
    restore.set_defaults(func=guarded(cmd_restore))
    tag = verbs.add_parser("tag", help="add free tags (`keep` protects from eviction) or --remove them")
    tag.add_argument("id")
    tag.add_argument("add", nargs="*", metavar="TAG")
    tag.add_argument("--remove", action="append", default=[], metavar="TAG")
    tag.set_defaults(func=guarded(cmd_tag))
    evict = verbs.add_parser("evict", help="run one bounded eviction pass now")
    evict.add_argument("--project")
    evict.add_argument("--run-key", default="manual")
    evict.add_argument("--max-steps", type=int)
    evict.set_defaults(func=guarded(cmd_evict))
    stats = verbs.add_parser("stats", help="memories per phase")
    stats.add_argument("--project")
    stats.set_defaults(func=guarded(cmd_stats))
    memory_admin_commands.add_verbs(verbs, guarded)


def cmd_list(args: argparse.Namespace, client: Any) -> int:
    page = client.get("/api/memory", project=args.project, phase=args.phase, tag=args.tag,
                      category=args.category, limit=max(1, min(200, args.limit)))
    if args.json:
        print(json.dumps(page, indent=2))
        return 0
    for m in page["results"]:
        text = " ".join(str(m["content"]).split())
        print(f"{m['id']}  {['full', 'hint', 'abstract', 'archived'][m['phase']]:<8} [{m['category']}] "
              f"{text[:120]}")
    if not page["results"]:
        print("No memories.")
    return 0


def cmd_restore(args: argparse.Namespace, client: Any) -> int:
    answer = client.post(f"/api/memory/{args.id}/restore")
    print(("restored: " if answer["restored"] else "already whole: ") + answer["memory"]["id"])
    return 0


def cmd_tag(args: argparse.Namespace, client: Any) -> int:
    memory = client.post(f"/api/memory/{args.id}/tags", {"add": args.add, "remove": args.remove})
    print(f"{memory['id']}: {', '.join(memory['tags'])}")
    return 0


def cmd_evict(args: argparse.Namespace, client: Any) -> int:
    body = {"project": args.project, "run_key": args.run_key, "max_steps": args.max_steps}
    report = client.post("/api/memory/evict", {k: v for k, v in body.items() if v is not None})
    print(f"advanced {report['advanced']} (hint {report['to_hint']}, abstract {report['to_abstract']}, "
          f"archived {report['to_archived']}) in {report['projects']} project(s)"
          + ("" if report["finished"] else "; not finished, run it again"))
    return 0


def cmd_stats(args: argparse.Namespace, client: Any) -> int:
    phases = client.get("/api/memory/phases", project=args.project)["phases"]
    print("  ".join(f"{name} {count}" for name, count in phases.items()))
    return 0
