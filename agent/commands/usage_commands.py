"""`itachi usage`: LLM spend by day and purpose, and today's budget."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_usage_parser(sub: Any) -> None:
    p = sub.add_parser("usage", help="show LLM spend by day and purpose against the daily budget")
    p.add_argument("--days", type=int, default=7, help="how many UTC days to show (default 7)")
    p.add_argument("--json", action="store_true", help="print the API's JSON answer")
    p.set_defaults(func=cmd_usage)


def cmd_usage(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiClient, ApiError

    try:
        report = ApiClient.configured().get("/api/usage", days=args.days)
    except ApiError as exc:
        print(f"cannot read usage: {exc.message}")
        return 1
    print(json.dumps(report, indent=2) if args.json else render_usage(report))
    return 0


def render_usage(report: dict[str, Any]) -> str:
    """A short plain-text report: the model, today against the budget, then one row per day+purpose."""
    llm, today = report.get("llm") or {}, report.get("today") or {}
    model = f"{llm.get('model')} (enabled)" if llm.get("enabled") else "off (heuristics only)"
    cap = today.get("budget_tokens")
    tokens = f"{today.get('spent_tokens', 0):,} tokens" + (f" of {cap:,}" if cap else "")
    lines = [f"LLM: {model}",
             f"Today: ${today.get('spent_usd', 0):.4f} of ${today.get('budget_usd', 0):.2f}, {tokens}"]
    rows = report.get("days") or []
    if not rows:
        lines.append("No LLM calls recorded.")
        return "\n".join(lines)
    lines.append(f"{'day':<11} {'purpose':<22} {'calls':>5} {'skipped':>7} {'failed':>6} "
                 f"{'tokens':>10} {'cost':>10}")
    for r in rows:
        used = int(r["prompt_tokens"]) + int(r["completion_tokens"])
        lines.append(f"{r['day']:<11} {r['purpose']:<22} {r['calls']:>5} {r['skipped']:>7} "
                     f"{r['failed']:>6} {used:>10,} {'$' + format(r['cost_usd'], '.4f'):>10}")
    return "\n".join(lines)
