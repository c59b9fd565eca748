"""`itachi import-rules [PATH] [--dry-run]`: other tools' rule files into Itachi.

Reads CLAUDE.md, AGENTS.md, `.cursorrules` / `.cursor/rules`, `.github/copilot-instructions.md`,
Cline's `.clinerules` and memory bank, and Windsurf's rules in the repository at PATH (default:
the current directory) and sends them to the server, which stores the new ones as project rules
and memories (`source: import`) and leaves the ones it holds alone. `--dry-run` shows what
would be added without writing anything.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

BATCH = 200


def add_import_rules_parser(sub: Any) -> None:
    p = sub.add_parser("import-rules", help="import CLAUDE.md, AGENTS.md, Cursor, Copilot, Cline and "
                                            "Windsurf rules of a repository")
    p.add_argument("path", nargs="?", default=".", help="the repository (default: the current directory)")
    p.add_argument("--dry-run", action="store_true", help="show what would be added, write nothing")
    p.add_argument("--project", help="project (default: the repository's project)")
    p.add_argument("--json", action="store_true", help="print the server's answers as JSON")
    p.set_defaults(func=cmd_import_rules)


def cmd_import_rules(args: argparse.Namespace) -> int:
    from agent.transcripts.rule_files import batches, read_items, rule_files
    from chalicelib.contracts.api_transport import ApiClient, ApiError
    from chalicelib.contracts.project_identity import project_for

    root = Path(args.path).expanduser().resolve()
    if not root.is_dir():
        print(f"not a directory: {root}", file=sys.stderr)
        return 1
    project = str(args.project or project_for(str(root)))
    items = read_items(root)
    if not items:
        print(f"no rule files found in {root}")
        return 0
    client = ApiClient.configured()
    answers = []
    try:
        for batch in batches(items, BATCH):  # a file is never split: its request retires what it lacks
            body = {"project": project, "dry_run": args.dry_run, "items": [i.as_json() for i in batch]}
            answers.append(client.post("/api/memory/import-rules", body))
    except ApiError as exc:
        print(f"import failed: {exc.message}", file=sys.stderr)
        return 1
    if args.json:
        files = [os.path.relpath(p, root) for p, _, _ in rule_files(root)]
        print(json.dumps({"project": project, "files": files, "answers": answers}, indent=2))
        return 0
    listed = [item for answer in answers for item in answer["items"]]
    for item in listed:
        mark = "+" if item["status"] == "new" else "="
        print(f"{mark} [{item['category']}] {item['content'][:100]}  ({item['path']})")
    new = sum(1 for item in listed if item["status"] == "new")
    verb = "would add" if args.dry_run else "added"
    print(f"{project}: {verb} {new}, already known {len(listed) - new}")
    return 0
