"""`itachi export DIR [--project P]` and `itachi import DIR`: the memory as files git can hold.

Export writes one Markdown file per memory (and per archived original) and the graph
(`graph_transfer_files.py`) in the format of `chalicelib/contracts/memory_files.py`, rewriting
only files whose bytes change and removing the files of rows that are gone, so exporting an
unchanged store twice gives no diff.
Import reads every file first; a file that does not parse (or whose archive does not) is
reported by path and skipped with its archive, the others go to the API in batches. A batch the
API refuses is split until the refused records are found, so one bad file costs nothing else.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agent.commands.graph_transfer_files import export_graph, graph_files, import_graph, read_graph
from chalicelib.contracts.memory_files import (
    ARCHIVE_KEYS,
    MEMORY_KEYS,
    MEMORY_OPTIONAL_KEYS,
    BadMemoryFile,
    parse,
    project_dir,
    render,
    write_if_changed,
    write_order,
)

PAGE = 500
BATCH_BYTES = 700_000
BATCH_RECORDS = 500


def _client() -> Any:
    from chalicelib.contracts.api_transport import ApiClient

    return ApiClient.configured(timeout_s=300.0)


def add_export_parser(sub: Any) -> None:
    p = sub.add_parser("export", help="write memories and the graph as git-friendly files")
    p.add_argument("dir")
    p.add_argument("--project", help="only this project (default: every project)")
    p.set_defaults(func=cmd_export)


def add_import_parser(sub: Any) -> None:
    p = sub.add_parser("import", help="read a directory written by `itachi export` back (idempotent)")
    p.add_argument("dir")
    p.add_argument("--defer-embeddings", action="store_true",
                   help="store memories without vectors; `itachi memory check --fix` computes them later")
    p.set_defaults(func=cmd_import)


def cmd_export(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiError

    root, client = Path(args.dir), _client()
    written, kept, after = 0, set[Path](), None
    try:
        while True:
            page = client.get("/api/memory/export", project=args.project, after=after, limit=PAGE)
            for record in page["records"]:
                for path, text in export_files(root, record):
                    written += write_if_changed(path, text)
                    kept.add(path)
            after = page["next_after"]
            if not after:
                break
        graph_written, graph_kept, nodes = export_graph(client, root, args.project, PAGE)
    except ApiError as exc:
        print(f"export failed: {exc.message}", file=sys.stderr)
        return 1
    written += graph_written
    if args.project:
        dirs = [root / project_dir(args.project)]
    else:
        dirs = [p for p in root.iterdir() if p.is_dir()] if root.exists() else []
    removed = prune(dirs, kept | graph_kept)
    memories = len([p for p in kept if p.parent.name == "memories"])
    print(f"exported {memories} memories and {nodes} graph nodes to {root}: {written} file(s) written, "
          f"{removed} removed")
    return 0


def export_files(root: Path, record: dict[str, Any]) -> list[tuple[Path, str]]:
    head = {k: v for k, v in record.items() if k not in ("content", "archive")}
    folder = root / project_dir(record["project"])
    files = [(folder / "memories" / f"{record['id']}.md", render(head, record["content"]))]
    archive = record.get("archive")
    if archive:
        meta = {"archived_at": archive["archived_at"], "category": archive["category"], "id": record["id"],
                "project": record["project"], "summary": archive["summary"]}
        files.append((folder / "archives" / f"{record['id']}.md", render(meta, archive["content"])))
    return files


def prune(dirs: list[Path], kept: set[Path]) -> int:
    removed = 0
    for folder in dirs:
        for path in [*folder.glob("memories/*.md"), *folder.glob("archives/*.md"), *graph_files(folder)]:
            if path not in kept and path.exists():
                path.unlink()
                removed += 1
    return removed


def read_export(root: Path) -> tuple[list[tuple[Path, dict[str, Any]]], list[tuple[Path, str]]]:
    """(path, record) of every memory file that parses with its archive; (path, why) of the rest."""
    bad: list[tuple[Path, str]] = []
    archives: dict[str, tuple[Path, dict[str, Any] | None]] = {}
    for path in sorted(root.glob("*/archives/*.md")):
        try:
            head, content = parse(path.read_text(encoding="utf-8"), ARCHIVE_KEYS)
            _same_id(path, head)
            archives[path.stem] = (path, {"content": content, "summary": head["summary"],
                                          "category": head["category"], "archived_at": head["archived_at"]})
        except (BadMemoryFile, OSError, UnicodeDecodeError) as exc:
            bad.append((path, str(exc)))
            archives[path.stem] = (path, None)
    good: list[tuple[Path, dict[str, Any]]] = []
    for path in sorted(root.glob("*/memories/*.md")):
        try:
            head, content = parse(path.read_text(encoding="utf-8"), MEMORY_KEYS, MEMORY_OPTIONAL_KEYS)
            _same_id(path, head)
        except (BadMemoryFile, OSError, UnicodeDecodeError) as exc:
            bad.append((path, str(exc)))
            continue
        archive_path, archive = archives.pop(path.stem, (None, None))
        if archive_path is not None and archive is None:
            bad.append((path, f"its archive {archive_path} is not readable"))
            continue
        good.append((path, {**head, "content": content, "archive": archive}))
    bad += [(p, "an archive without its memory file") for p, a in archives.values() if a is not None]
    good.sort(key=lambda item: write_order(item[1]))  # batches in the order the memories were written
    return good, bad


def _same_id(path: Path, head: dict[str, Any]) -> None:
    if head.get("id") != path.stem:
        raise BadMemoryFile("its id is not its file name")


def cmd_import(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiError

    good, bad = read_export(Path(args.dir))
    graph, unreadable = read_graph(Path(args.dir))
    bad += unreadable
    client, totals, deferred = _client(), {"inserted": 0, "updated": 0, "unchanged": 0}, []
    try:
        for batch in batches(good):
            for refused, why, answer in send(client, batch, not args.defer_embeddings):
                if why:
                    bad.append((refused or Path(args.dir), why))
                    continue
                for key in totals:
                    totals[key] += answer[key]
                deferred += answer["deferred"]
                bad += [(path, "another memory of the project already says the same (content hash)")
                        for path, record in batch if record["id"] in set(answer["conflicts"])]
        while deferred:
            left = client.post("/api/memory/import", {"links": deferred})["deferred"]
            if len(left) == len(deferred):
                bad += [(Path(args.dir), f"memory {d['id']}: superseded by {d['superseded_by']}, which is "
                         "not there") for d in left]
                break
            deferred = left
        counts, graph_bad = import_graph(client, graph, lambda b, key: send(client, b, False, key), batches)
        bad += graph_bad
    except ApiError as exc:
        print(f"import failed: {exc.message}", file=sys.stderr)
        return 1
    print(f"imported {sum(totals.values())} memories ({totals['inserted']} new, {totals['updated']} updated, "
          f"{totals['unchanged']} unchanged)")
    print("imported the graph: " + ", ".join(
        f"{sum(c.values())} {part} ({c['inserted']} new, {c['updated']} updated, {c['unchanged']} unchanged)"
        for part, c in counts.items()))
    for path, why in bad:
        print(f"skipped {path}: {why}", file=sys.stderr)
    return 1 if bad else 0


def batches(items: list[tuple[Path, dict[str, Any]]]) -> list[list[tuple[Path, dict[str, Any]]]]:
    out: list[list[tuple[Path, dict[str, Any]]]] = [[]]
    size = 0
    for item in items:
        length = len(json.dumps(item[1]))
        if out[-1] and (size + length > BATCH_BYTES or len(out[-1]) >= BATCH_RECORDS):
            out.append([])
            size = 0
        out[-1].append(item)
        size += length
    return [b for b in out if b]


def send(client: Any, batch: list[tuple[Path, dict[str, Any]]], embed: bool, key: str = "records"
         ) -> list[tuple[Path | None, str | None, dict[str, Any]]]:
    """Post a batch (as `key`); a refused batch is split until each refused record is named by its path."""
    from chalicelib.contracts.api_transport import ApiError

    try:
        answer = client.post("/api/memory/import", {key: [r for _, r in batch], "embed": embed})
        return [(None, None, answer)]
    except ApiError as exc:
        if exc.status not in (400, 413):
            raise
        if len(batch) == 1:
            return [(batch[0][0], f"refused by the API: {exc.message}", {})]
        half = len(batch) // 2
        return send(client, batch[:half], embed, key) + send(client, batch[half:], embed, key)
