"""LoCoMo turn recall with and without the graph memory's fast path (heuristic extraction).

    .venv/bin/python bench/locomo_graph.py [--data ../shared/benchdata] [--convs 1-5] [--slots 3]

Starts its own `itachi up` (local MiniLM embedder), stores each conversation's turns as
memories through the API exactly as `bench/locomo.py` does, and writes each turn into the graph
with the heuristic extractor (no LLM), the turn's `dia_id` kept in the nodes' attributes. Each
category 1-4 question is asked of the hybrid search through the API (limit 20, the default
weights) and of the graph's fast path in process (the code the prompt hook's request runs).
Rankings scored: hybrid alone; the graph alone (its non-entity nodes by score, mapped to their
turns); and the fusion the hook sees: hybrid's first 10 - `--slots` turns, then up to `--slots`
turns the graph found that hybrid had not placed there, then the rest of hybrid. Prints turn
recall@10 overall and for categories 1 (multi-hop) and 2 (temporal), and the fast path's time.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import Chosen, ingest, parse_convs, postgres_url, settings_env
from bench.locomo_data import load
from bench.locomo_report import asked, evaluate, mean_of, overall
from bench.memory_api import ROOT, ItachiServer, percentile

TURNS_PER_UNIT = 50


def graph_container(server: ItachiServer, url: str) -> Any:
    from chalicelib.bootstrap import build
    from chalicelib.kernel.settings import Settings

    settings = Settings.from_env({"ITACHI_HOME": str(server.home)}).replace(
        database_url=url, openai_api_key=""
    )
    return build(settings)


def build_graph(container: Any, chosen: Chosen) -> tuple[int, float]:
    """Every turn through the heuristic extractor into its conversation's project; (nodes, seconds)."""
    from chalicelib.graph.domain.heuristic_extractor import extract
    from chalicelib.graph.services.graph_writer import write_extraction

    started, nodes, now = time.perf_counter(), 0, datetime.now(UTC)
    for _, conv in chosen:
        project = f"locomo-{conv.sample_id}"
        for start in range(0, len(conv.turns), TURNS_PER_UNIT):
            turns = conv.turns[start : start + TURNS_PER_UNIT]
            found_all = [extract(turn.text, now) for turn in turns]
            # One embedding batch for the unit: the writes below then find every vector cached.
            texts = {m.name for f in found_all for m in f.entities} | {
                i.content for f in found_all for i in f.items
            }
            container.embedder.embed(sorted(texts))
            with container.graph_units() as uow:
                for turn, found in zip(turns, found_all, strict=True):
                    written = write_extraction(
                        uow.graph, container.embedder, project, found, "user", {"dia_id": turn.dia_id}
                    )
                    nodes += len(written["nodes"]) + len(written["entities"])
                uow.commit()
    return nodes, time.perf_counter() - started


def graph_turns(container: Any, project: str, question: str) -> tuple[list[str], float]:
    """The turns behind the graph's fast context for `question`, best node first; and its ms."""
    started = time.perf_counter()
    sections = container.graph_retrieve.fast(project, question).sections
    ms = (time.perf_counter() - started) * 1000
    nodes = sorted(
        sections.instructions + sections.facts + sections.events + sections.plans, key=lambda n: -n.score
    )
    seen: list[str] = []
    for node in nodes:
        dia = (node.attributes.get("origin") or {}).get("dia_id") or node.attributes.get("dia_id")
        if dia and dia not in seen:
            seen.append(str(dia))
    return seen, ms


def fuse(hybrid: list[str], graph: list[str], behind: dict[str, set[str]], slots: int) -> list[str]:
    """Hybrid's first 10 - slots, then up to `slots` new graph turns, then the rest of hybrid."""
    head = hybrid[: 10 - slots]
    have = set().union(*(behind.get(i, set()) for i in head)) if head else set()
    extra = [f"g:{d}" for d in graph if d not in have][:slots]
    return head + extra + [i for i in hybrid[10 - slots :] if i not in head]


def pick(data: Path, convs: str) -> Chosen:
    everything = load(data)
    return [(n, everything[n - 1]) for n in parse_convs(convs, len(everything))]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "benchdata")
    parser.add_argument("--convs", default="all")
    parser.add_argument("--slots", type=int, nargs="+", default=[3])
    args = parser.parse_args()
    chosen = pick(args.data, args.convs)
    server = ItachiServer(env=settings_env(0.4, 0.6, 0.1)).start()
    try:
        behind, _, _, seconds = ingest(server.client(), chosen, "shifted")
        turns = sum(len(c.turns) for _, c in chosen)
        print(f"memories: {turns} turns in {seconds:.0f} s", flush=True)
        handle, url = postgres_url(server)
        container = graph_container(server, url)
        try:
            nodes, seconds = build_graph(container, chosen)
            print(f"graph: {nodes} nodes written in {seconds:.0f} s", flush=True)
            client = server.client()
            hybrid: dict[str, list[str]] = {}
            graph: dict[str, list[str]] = {}
            timings: list[float] = []
            for _, conv, q in asked(chosen):
                project = f"locomo-{conv.sample_id}"
                answer = client.search(q.text, project, 20, "hybrid", include_global=False)
                hybrid[q.qid] = [r["id"] for r in answer["results"]]
                graph[q.qid], ms = graph_turns(container, project, q.text)
                timings.append(ms)
        finally:
            container.close()
            handle.cleanup()
    finally:
        server.stop()
    graph_behind = {**behind, **{f"g:{d}": {d} for ids in graph.values() for d in ids}}
    rankings = {
        "hybrid (default)": hybrid,
        "graph fast path alone": {qid: [f"g:{d}" for d in ids] for qid, ids in graph.items()},
    }
    for slots in args.slots:
        rankings[f"hybrid + graph ({slots} of the 10 slots)"] = {
            qid: fuse(hybrid[qid], graph[qid], behind, slots) for qid in hybrid
        }
    print(
        f"\nconversations {args.convs}; graph fast path in process: p50 {percentile(timings, 50):.1f} ms, "
        f"p95 {percentile(timings, 95):.1f} ms over {len(timings)} questions"
    )
    print("\n| ranking | R@10 all | R@10 cat 1 (multi-hop) | R@10 cat 2 (temporal) |\n|---|---|---|---|")
    for label, ranked in rankings.items():
        result = evaluate(chosen, graph_behind, ranked)
        cited = result["scores"]["cited"]
        print(
            f"| {label} | {overall(result):.3f} | {mean_of(cited[1], 'R@10'):.3f} | "
            f"{mean_of(cited[2], 'R@10'):.3f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
