"""`itachi rules`: the project's live rules from the one instruction store, or those live at a time."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any


def add_rules_parser(sub: Any) -> None:
    p = sub.add_parser("rules", help="list the project's live rules (and the global ones)")
    p.add_argument("--project", help="the project (default: this directory's project)")
    p.add_argument("--as-of", dest="as_of", help="the rules live at this time (ISO 8601 date or time, UTC)")
    p.add_argument("-l", "--limit", type=int, default=50, help="how many rules (default 50)")
    p.add_argument("--json", action="store_true", help="print the API's JSON answer")
    p.set_defaults(func=cmd_rules)


def cmd_rules(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiClient, ApiError
    from chalicelib.contracts.project_identity import project_for

    project = str(args.project or project_for(os.getcwd()))
    try:
        answer = ApiClient.configured().get("/api/rules", project=project, as_of=args.as_of, limit=args.limit)
    except ApiError as exc:
        print(f"cannot read the rules: {exc.message}", file=sys.stderr)
        return 1
    print(json.dumps(answer, indent=2) if args.json else render_rules(answer, args.as_of))
    return 0


def render_rules(answer: dict[str, Any], as_of: str | None) -> str:
    """One line per rule: its text, then scope, source, file and line, reinforcement and since when."""
    rules = answer.get("rules") or []
    if not rules:
        return f"No rules were live at {as_of}." if as_of else "No rules yet."
    lines = []
    for r in rules:
        where = f" {r['file']['path']}:{r['file'].get('line') or '?'}" if r.get("file") else ""
        lines.append(f"- {r['text']}  [{r['scope']}, {r['source']}{where}, x{r['times_reinforced']}, "
                     f"since {str(r['valid_from'])[:10]}]")
    return "\n".join(lines)
