"""The graph's part of `itachi export` and `itachi import`: nodes as files, edges and contradictions
as lines (`chalicelib/contracts/memory_files.py` holds the layout).

Export pages the nodes of `GET /api/memory/export?part=graph`, each page with the edges leaving
its nodes and the contradictions they raised, and writes only what changed. Import sends nodes
first, then edges, then contradictions (each names nodes that must be there), and last the
supersede links whose target came in a later batch.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chalicelib.contracts.memory_files import (
    NODE_KEYS,
    BadMemoryFile,
    parse,
    parse_lines,
    project_dir,
    render,
    render_lines,
    write_if_changed,
)

LINE_FILES = {"edges": "edges.jsonl", "contradictions": "contradictions.jsonl"}
Item = tuple[Path, dict[str, Any]]
Sender = Callable[[list[Item], str], list[tuple[Path | None, str | None, dict[str, Any]]]]


def export_graph(client: Any, root: Path, project: str | None, page_size: int) -> tuple[int, set[Path], int]:
    """Write the graph's files under `root`: (files written, files kept, nodes)."""
    written, kept, after = 0, set[Path](), None
    lines: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    project_of: dict[str, str] = {}
    while True:
        page = client.get("/api/memory/export", part="graph", project=project, after=after, limit=page_size)
        for node in page["nodes"]:
            project_of[node["id"]] = node["project"]
            path = root / project_dir(node["project"]) / "graph" / "nodes" / f"{node['id']}.md"
            written += write_if_changed(path, render({k: v for k, v in node.items() if k != "content"},
                                                     node["content"]))
            kept.add(path)
        for edge in page["edges"]:
            lines[(project_of[edge["source_id"]], "edges")].append(edge)
        for contradiction in page["contradictions"]:
            lines[(contradiction["project"], "contradictions")].append(contradiction)
        after = page["next_after"]
        if not after:
            break
    for (name, part), records in sorted(lines.items()):
        path = root / project_dir(name) / "graph" / LINE_FILES[part]
        written += write_if_changed(path, render_lines(records))
        kept.add(path)
    return written, kept, len(project_of)


def graph_files(folder: Path) -> list[Path]:
    """The graph files of one project folder (for pruning what is gone)."""
    return [*folder.glob("graph/nodes/*.md"), *(folder / "graph" / name for name in LINE_FILES.values())]


def read_graph(root: Path) -> tuple[dict[str, list[Item]], list[tuple[Path, str]]]:
    """(path, record) of every node, edge and contradiction that parses; (path, why) of the rest."""
    parts: dict[str, list[Item]] = {"nodes": [], "edges": [], "contradictions": []}
    bad: list[tuple[Path, str]] = []
    for path in sorted(root.glob("*/graph/nodes/*.md")):
        try:
            head, content = parse(path.read_text(encoding="utf-8"), NODE_KEYS)
            if head.get("id") != path.stem:
                raise BadMemoryFile("its id is not its file name")
        except (BadMemoryFile, OSError, UnicodeDecodeError) as exc:
            bad.append((path, str(exc)))
            continue
        parts["nodes"].append((path, {**head, "content": content}))
    for part, name in LINE_FILES.items():
        for path in sorted(root.glob(f"*/graph/{name}")):
            try:
                parts[part] += [(path, r) for r in parse_lines(path.read_text(encoding="utf-8"))]
            except (BadMemoryFile, OSError, UnicodeDecodeError) as exc:
                bad.append((path, str(exc)))
    return parts, bad


def import_graph(client: Any, parts: dict[str, list[Item]], send: Sender,
                 batches: Callable[[list[Item]], list[list[Item]]]) -> tuple[dict[str, dict[str, int]],
                                                                            list[tuple[Path, str]]]:
    """Send the graph's records part by part: (counts per part, (path, why) of those refused)."""
    totals = {part: {"inserted": 0, "updated": 0, "unchanged": 0} for part in parts}
    bad: list[tuple[Path, str]] = []
    deferred: list[dict[str, Any]] = []
    why = {"conflicts": "another row already holds its name, ends or pair",
           "missing": "the nodes it names are not there"}
    for part, items in parts.items():
        paths = {str(r["id"]): p for p, r in items}
        for batch in batches(items):
            for refused, reason, answer in send(batch, f"graph_{part}"):
                if reason:
                    bad.append((refused or Path("."), reason))
                    continue
                graph = answer["graph"]
                for key in totals[part]:
                    totals[part][key] += graph[part][key]
                deferred += graph["deferred"]
                bad += [(paths[i], f"{part[:-1]} {i}: {why[k]}") for k in why for i in graph[k] if i in paths]
    while deferred:
        left = client.post("/api/memory/import", {"graph_links": deferred})["graph"]["deferred"]
        if len(left) == len(deferred):
            bad += [(Path("."), f"graph node {d['id']}: superseded by {d['superseded_by']}, which is "
                     "not there") for d in left]
            break
        deferred = left
    return totals, bad
