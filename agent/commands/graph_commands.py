"""`itachi graph ...` and `itachi recall`: the graph memory from the command line.

entities, show ID, context "query" [--deep], contradictions, resolve ID keep_new|keep_old|keep_both,
trace ID. `itachi recall "query" [--deep]` prints the graph's context for a question. The
project defaults to the current directory's, as for the other memory verbs.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

RESOLUTIONS = ("keep_new", "keep_old", "keep_both")


def _project(args: argparse.Namespace) -> str:
    from chalicelib.contracts.project_identity import project_for

    return str(getattr(args, "project", None) or project_for(os.getcwd()))


def add_graph_parser(sub: Any) -> None:
    p = sub.add_parser("graph", help="the graph memory: entities, contradictions, traces")
    verbs = p.add_subparsers(dest="graph_command", metavar="VERB", required=True)
    entities = verbs.add_parser("entities", help="list the project's entities")
    entities.add_argument("--prefix", help="names starting with this")
    entities.add_argument("--limit", type=int, default=50)
    show = verbs.add_parser("show", help="an entity's profile and relationships")
    show.add_argument("id")
    context = verbs.add_parser("context", help="what the graph gives a prompt")
    context.add_argument("query", nargs="+")
    context.add_argument("--deep", action="store_true", help="plan, tool loop and curation (needs a model)")
    verbs.add_parser("contradictions", help="instructions that contradict each other, open for review")
    resolve = verbs.add_parser("resolve", help="resolve a contradiction")
    resolve.add_argument("id")
    resolve.add_argument("resolution", choices=RESOLUTIONS)
    trace = verbs.add_parser("trace", help="a pipeline run's trace (kept 7 days)")
    trace.add_argument("id")
    for verb in (entities, show, context, resolve, trace, *[verbs.choices["contradictions"]]):
        verb.add_argument("--project", help="project (default: this directory's project)")
        verb.add_argument("--json", action="store_true", help="print the API's JSON answer")
    p.set_defaults(func=cmd_graph)


def add_recall_parser(sub: Any) -> None:
    p = sub.add_parser("recall", help="what the graph memory knows about a question")
    p.add_argument("query", nargs="+")
    p.add_argument("--deep", action="store_true", help="plan, tool loop and curation (needs a model)")
    p.add_argument("--project", help="project (default: this directory's project)")
    p.add_argument("--json", action="store_true", help="print the API's JSON answer")
    p.set_defaults(func=cmd_recall, graph_command="context")


def cmd_recall(args: argparse.Namespace) -> int:
    return cmd_graph(args)


def cmd_graph(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiClient, ApiError

    client = ApiClient.configured()
    try:
        answer, text = _run(client, args)
    except ApiError as exc:
        print(f"graph: {exc.message}")
        return 1
    print(json.dumps(answer, indent=2) if args.json else text)
    return 0


def _run(client: Any, args: argparse.Namespace) -> tuple[Any, str]:
    verb = args.graph_command
    if verb == "entities":
        params = {
            "project": _project(args),
            "limit": args.limit,
            **({"prefix": args.prefix} if args.prefix else {}),
        }
        answer = client.get("/api/graph/entities", **params)
        rows = [
            f"{e['id']}  {e['content']}" + (f" ({e['subtype']})" if e.get("subtype") else "")
            for e in answer["entities"]
        ]
        return answer, "\n".join(rows) or "No entities yet."
    if verb == "show":
        answer = client.get(f"/api/graph/entities/{args.id}")
        rels = [
            f"  {r['type']} {'->' if r['direction'] == 'out' else '<-'} {r['node']['content']}"
            for r in answer.get("relationships", [])
        ]
        return answer, "\n".join([f"{answer['content']} [{answer['type']}]", *rels])
    if verb == "context":
        answer = client.get(
            "/api/graph/context",
            query=" ".join(args.query),
            project=_project(args),
            deep="true" if args.deep else "false",
        )
        return answer, answer.get("text") or "The graph knows nothing about that yet."
    if verb == "contradictions":
        answer = client.get("/api/graph/contradictions", project=_project(args))
        rows = [
            f"{c['id']}\n  new: {c['new']['content']}\n  old: {c['old']['content']}"
            for c in answer["contradictions"]
        ]
        return answer, "\n".join(rows) or "No open contradictions."
    if verb == "resolve":
        answer = client.post(f"/api/graph/contradictions/{args.id}/resolve", {"resolution": args.resolution})
        return answer, f"Resolved: {answer['status']}"
    answer = client.get(f"/api/graph/traces/{args.id}")
    return answer, json.dumps(answer, indent=2)
