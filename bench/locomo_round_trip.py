"""LoCoMo recall before and after an export round trip (`itachi export`, a wiped store, `itachi import`).

    .venv/bin/python -m bench.locomo_round_trip [--data ../shared/benchdata] [--convs all]
        [--dates once|original]

Starts its own `itachi up` in a throwaway home, stores the chosen conversations as
`bench/locomo.py` does (`--dates once`: every turn at one time, as a bulk import stores them),
asks every category 1-4 question (hybrid, limit 20), then exports every memory with the CLI's own
file functions (`agent/commands/memory_transfer_commands.py`: each record written as its
Markdown file), deletes every memory, reads the files back as `itachi import` does and sends them
to `POST /api/memory/import` in its batches, and asks every question again. Memory ids survive
the round trip, so the evidence behind each memory is the same. Prints turn recall@10 and MRR
before and after, and how many questions got a different top 10.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from agent.commands.memory_transfer_commands import batches, export_files, read_export
from bench.locomo import ingest, parse_convs, postgres_url, run_mode, settings_env
from bench.locomo_data import load
from bench.locomo_report import overall
from bench.memory_api import ROOT, ApiClient, ItachiServer
from chalicelib.contracts.memory_files import write_if_changed

PAGE = 500


def export_to(client: ApiClient, root: Path) -> int:
    """Every memory as its export file under `root`; how many."""
    after, count = None, 0
    while True:
        page = client.call("GET", "/api/memory/export", after=after, limit=PAGE)
        for record in page["records"]:
            for path, text in export_files(root, record):
                write_if_changed(path, text)
            count += 1
        after = page["next_after"]
        if not after:
            return count


def wipe(server: ItachiServer) -> None:
    import psycopg

    handle, url = postgres_url(server)
    try:
        with psycopg.connect(url) as conn:
            conn.execute("DELETE FROM memories")
    finally:
        handle.cleanup()


def import_from(client: ApiClient, root: Path) -> dict[str, int]:
    """The files read back as `itachi import` reads them, sent in its batches; the server's counts."""
    good, bad = read_export(root)
    if bad:
        raise SystemExit(f"{len(bad)} export files did not read back: {bad[:3]}")
    totals = {"inserted": 0, "updated": 0, "unchanged": 0}
    for batch in batches(good):
        answer = client.call("POST", "/api/memory/import", {"records": [record for _, record in batch]})
        for key in totals:
            totals[key] += answer[key]
    return totals


def changed(before: dict[str, list[str]], after: dict[str, list[str]]) -> int:
    return sum(before[qid][:10] != after.get(qid, [])[:10] for qid in before)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "benchdata")
    parser.add_argument("--convs", default="all", help="1-based conversations: 1-5, 6-10, 1,3 or all")
    parser.add_argument("--dates", choices=("once", "original"), default="once")
    args = parser.parse_args()
    everything = load(args.data)
    chosen = [(n, everything[n - 1]) for n in parse_convs(args.convs, len(everything))]
    server = ItachiServer(None, env=settings_env(0.4, 0.6, 0.1)).start()
    try:
        client = server.client()
        behind, _, _, seconds = ingest(client, chosen, args.dates)
        print(f"stored {sum(len(c.turns) for _, c in chosen)} turns in {seconds:.0f} s", flush=True)
        first: dict[str, Any] = run_mode(client, chosen, behind, "hybrid")
        with tempfile.TemporaryDirectory() as folder:
            exported = export_to(client, Path(folder))
            wipe(server)
            counts = import_from(client, Path(folder))
        print(f"exported {exported} memories; imported {counts}", flush=True)
        second: dict[str, Any] = run_mode(client, chosen, behind, "hybrid")
    finally:
        server.stop()
    print(f"\nLoCoMo conversations {args.convs}, dates {args.dates}, hybrid, categories 1-4\n")
    print("| store | R@10 | 1-5 | 6-10 | MRR |\n|---|---|---|---|---|")
    for label, result in (("as written", first), ("after export, wipe and import", second)):
        halves = " | ".join(f"{result['halves'].get(h, float('nan')):.3f}" for h in ("1-5", "6-10"))
        print(f"| {label} | {overall(result):.3f} | {halves} | {overall(result, 'MRR'):.3f} |")
    print(f"\nquestions whose top 10 changed: {changed(first['ranked'], second['ranked'])} "
          f"of {len(first['ranked'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
