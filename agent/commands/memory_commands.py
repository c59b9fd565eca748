"""`itachi search`, `remember`, `forget` and `index`: the memory from the command line.

The project defaults to the one the current directory belongs to (its git remote), the same
name the hooks use. `index` sends markdown files to the server, which chunks them and keeps
the index state; an unchanged file costs one request and no embedding.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdx"}
MAX_INDEX_BYTES = 900_000


def _project(args: argparse.Namespace) -> str:
    from chalicelib.contracts.project_identity import project_for

    return str(args.project or project_for(os.getcwd()))


def _client() -> Any:
    from chalicelib.contracts.api_transport import ApiClient

    return ApiClient.configured()


def add_search_parser(sub: Any) -> None:
    p = sub.add_parser("search", help="search memory (hybrid: meaning and keywords)")
    p.add_argument("query", nargs="+", help="what to look for")
    p.add_argument("-l", "--limit", type=int, default=10, help="how many results (default 10)")
    p.add_argument("--exact", action="store_true", help="keywords only (full-text), no semantic match")
    p.add_argument("--json", action="store_true", help="print the API's JSON answer")
    p.add_argument("--project", help="project to search (default: this directory's project)")
    p.add_argument("--category", help="only memories of this category")
    p.add_argument("--no-global", action="store_true", help="leave out the _global memories")
    p.add_argument("--explain", action="store_true",
                   help="show each candidate's vector, text and recency parts, its rank in each, "
                        "and the candidates that lost")
    p.add_argument("--untrusted", action="store_true",
                   help="include quarantined memories (tool output, web, other agents)")
    p.set_defaults(func=cmd_search)


def cmd_search(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiError

    params = {"query": " ".join(args.query), "project": _project(args), "limit": args.limit,
              "mode": "text" if args.exact else "hybrid", "category": args.category,
              "include_global": "false" if args.no_global else None,
              "include_untrusted": "true" if args.untrusted else None,
              "explain": "true" if args.explain else None}
    try:
        answer = _client().get("/api/memory/search", **params)
    except ApiError as exc:
        print(f"search failed: {exc.message}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(answer, indent=2))
    else:
        print(render_explanation(answer) if args.explain else render_results(answer))
    return 0


def render_explanation(answer: dict[str, Any]) -> str:
    """One line per candidate: fused score and rank, then each part with its rank; the cut marked."""
    weights = answer.get("weights") or {}
    lines = [f"mode {answer.get('mode')}" + (f" (degraded: {answer['degraded']})" if answer.get("degraded")
                                             else "")
             + f", weights vector {weights.get('vector')} text {weights.get('text')} recency "
               f"{weights.get('recency')} (half-life {weights.get('half_life_days')} days)",
             "rank  score   vector (rank)   text (rank)     recency (rank)  memory"]
    candidates = answer.get("candidates") or []
    for item in candidates:
        if not item.get("selected") and item.get("rank") == answer.get("limit", 0) + 1:
            lines.append(f"---- cut at {answer.get('limit')}: the candidates below lost ----")
        parts, ranks = item.get("parts") or {}, item.get("ranks") or {}
        cells = [f"{parts[p]:.3f} ({ranks[p]:>2})" if parts.get(p) is not None else "    -        "
                 for p in ("vector", "text", "recency")]
        first = " ".join(str(item.get("content") or "").split())
        text = first if len(first) <= 90 else first[:89] + "…"
        flag = "" if item.get("trusted", True) else " [untrusted]"
        lines.append(f"{item.get('rank'):>4}  {item.get('score', 0):.3f}   " + "   ".join(cells)
                     + f"  [{item.get('category')}] {text}{flag}")
    if not candidates:
        lines.append("No candidates.")
    return "\n".join(lines)


def render_results(answer: dict[str, Any]) -> str:
    results = answer.get("results") or []
    if not results:
        return "No memories match."
    lines = []
    if answer.get("degraded"):
        lines.append(f"(keyword search only: {answer['degraded']})")
    for item in results:
        first = " ".join(str(item.get("content") or "").split())
        text = first if len(first) <= 160 else first[:159] + "…"
        lines.append(f"{item.get('score', 0):.3f}  [{item.get('category')}] {text}  "
                     f"({item.get('project')}, {str(item.get('id'))[:8]})")
    return "\n".join(lines)


def add_remember_parser(sub: Any) -> None:
    p = sub.add_parser("remember", help="store a memory ('-' reads it from stdin)")
    p.add_argument("text", nargs="+")
    p.add_argument("--project", help="project (default: this directory's project)")
    p.add_argument("--category", default="fact", help="category (default: fact)")
    p.set_defaults(func=cmd_remember)


def cmd_remember(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiError

    text = sys.stdin.read() if args.text == ["-"] else " ".join(args.text)
    try:
        answer = _client().post("/api/memory", {"project": _project(args), "category": args.category,
                                                "content": text})
    except ApiError as exc:
        print(f"could not remember: {exc.message}", file=sys.stderr)
        return 1
    verb = "already known, reinforced" if answer.get("deduplicated") else "remembered"
    print(f"{verb}: {answer['id']}")
    return 0


def add_forget_parser(sub: Any) -> None:
    p = sub.add_parser("forget", help="delete a memory by id")
    p.add_argument("id")
    p.set_defaults(func=cmd_forget)


def cmd_forget(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiError

    try:
        _client().delete(f"/api/memory/{args.id}")
    except ApiError as exc:
        print(f"could not forget {args.id}: {exc.message}", file=sys.stderr)
        return 1
    print(f"forgotten: {args.id}")
    return 0


def add_index_parser(sub: Any) -> None:
    p = sub.add_parser("index", help="index markdown files (re-indexes only what changed)")
    p.add_argument("paths", nargs="+", help="files or directories (searched for *.md)")
    p.add_argument("--project", help="project (default: this directory's project)")
    p.add_argument("--category", default="document", help="category of the chunks (default: document)")
    p.set_defaults(func=cmd_index)


def markdown_files(paths: list[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix.lower() in MARKDOWN_SUFFIXES
                              and p.is_file() and not any(part.startswith(".") for part in p.parts))
        else:
            yield path


def source_path(path: Path) -> str:
    """The file's path inside its repository (the same on every machine), else its absolute path."""
    resolved = path.resolve()
    for parent in resolved.parents:
        if (parent / ".git").exists():
            return resolved.relative_to(parent).as_posix()
    return str(resolved)


def cmd_index(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiError

    client, project, failures = _client(), _project(args), 0
    for path in markdown_files(args.paths):
        try:
            if path.stat().st_size > MAX_INDEX_BYTES:
                print(f"skipped {path}: larger than {MAX_INDEX_BYTES} bytes")
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            report = client.post("/api/memory/index", {"project": project, "path": source_path(path),
                                                       "text": text, "category": args.category})
        except (OSError, ApiError) as exc:
            failures += 1
            print(f"failed {path}: {getattr(exc, 'message', exc)}", file=sys.stderr)
            continue
        state = "unchanged" if report["skipped"] else (
            f"+{report['added']} -{report['removed']} ={report['unchanged']}")
        print(f"{path}: {report['chunks']} chunks, {state}")
    return 1 if failures else 0
