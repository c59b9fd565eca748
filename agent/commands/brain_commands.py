"""`itachi brain status|on|off|proposals|approve|reject|config|cycle`: the brain loop through the API."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_brain_parser(sub: Any) -> None:
    p = sub.add_parser("brain", help="the brain loop: status, kill switch, settings and proposals")
    verbs = p.add_subparsers(dest="brain_verb", metavar="VERB")
    verbs.add_parser("status", help="switch, settings, today's LLM calls, the last cycle")
    verbs.add_parser("on", help="let the brain run its cycles")
    verbs.add_parser("off", help="the kill switch: no cycle runs and no proposal's action runs")
    listing = verbs.add_parser("proposals", help="recent proposals")
    listing.add_argument("--status", choices=["pending", "approved", "rejected", "expired", "failed"])
    listing.add_argument("--limit", type=int, default=20)
    approve = verbs.add_parser("approve", help="approve a proposal (runs its action once)")
    approve.add_argument("proposal")
    reject = verbs.add_parser("reject", help="reject a proposal, saying why")
    reject.add_argument("proposal")
    reject.add_argument("reason", nargs="*")
    config = verbs.add_parser("config", help="set interval (10m), budget (LLM calls a day) or max")
    config.add_argument("name", choices=["interval", "budget", "max"])
    config.add_argument("value")
    verbs.add_parser("cycle", help="run one cycle now")
    p.add_argument("--json", action="store_true", help="print the API's JSON answer")
    p.set_defaults(func=cmd_brain)


def cmd_brain(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiClient, ApiError

    api, verb = ApiClient.configured(), args.brain_verb or "status"
    try:
        if verb == "status":
            answer = api.get("/api/brain")
        elif verb in ("on", "off"):
            answer = api.post("/api/brain", {"enabled": verb == "on"})
        elif verb == "config":
            value: Any = args.value if args.name == "interval" else int(args.value)
            answer = api.post("/api/brain", {args.name: value})
        elif verb == "cycle":
            answer = api.post("/api/brain/cycle", {"force": True})
        elif verb == "proposals":
            query = {"limit": args.limit, **({"status": args.status} if args.status else {})}
            answer = api.get("/api/brain/proposals", **query)
        else:
            body = {"reason": " ".join(args.reason)} if verb == "reject" else {}
            answer = api.post(f"/api/brain/proposals/{args.proposal}/{verb}", body)
    except (ApiError, ValueError) as exc:
        print(f"brain {verb}: {getattr(exc, 'message', exc)}")
        return 1
    print(json.dumps(answer, indent=2) if args.json else render(verb, answer))
    return 0


def render(verb: str, answer: dict[str, Any]) -> str:
    if verb == "proposals":
        rows = answer.get("proposals") or []
        return "\n".join(_line(p) for p in rows) or "No proposals."
    if verb in ("approve", "reject"):
        return _line(answer)
    if verb == "cycle":
        return (f"cycle: {'ran' if answer['ran'] else 'skipped (' + answer['reason'] + ')'}, "
                f"{answer['observations']} observation(s), {len(answer['proposals'])} proposal(s), "
                f"ranking {answer['ranking'] or '-'}, {answer['seconds']:.2f} s")
    last = answer.get("last_cycle") or {}
    return "\n".join([
        f"brain: {'on' if answer['enabled'] else 'OFF'}; every {answer['interval_s']} s, "
        f"at most {answer['max_proposals']} proposal(s) a cycle",
        f"LLM calls today: {answer['llm_calls_today']} of {answer['daily_llm_calls']}",
        f"pending proposals: {answer['pending_proposals']}",
        f"last cycle: {answer.get('last_cycle_at') or 'never'}"
        + (f" ({last.get('observations', 0)} observations, {len(last.get('proposals', []))} proposals)"
           if last else "")])


def _line(p: dict[str, Any]) -> str:
    outcome = p.get("result") or p.get("reject_reason") or ""
    project = p.get("project") or "-"
    return (f"{p['id'][:8]}  {p['status']:<9} P{p['priority']} {project:<12} {p['title'][:70]}"
            + (f"  -> {outcome[:80]}" if outcome else ""))
