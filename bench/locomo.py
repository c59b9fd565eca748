"""LoCoMo retrieval benchmark through the real API: ingest every conversation, ask every question.

    .venv/bin/python bench/locomo.py [--data ../shared/benchdata] [--weights 0.4,0.6 0.7,0.3]

Starts its own `itachi up` in a throwaway home (local MiniLM embedder), stores each
conversation in its own project with `POST /api/memory/batch` (turn text "<speaker>: <text>"
plus the image caption, `dia_id` in metadata, `created_at` from the session date), then asks
each category 1-4 question with `GET /api/memory/search` (limit 20) in hybrid, text-only and
vector-only mode, and once more in hybrid mode for every other `--weights` vector,text pair
(the server restarts with them; the data stays). Prints markdown tables: turn recall@5/10/20,
MRR and session recall_all@5/10 by category, against the cited and the audited evidence;
search latency p50/p95 and mean tokens returned in the top 10.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo_data import Conversation, Question, load, score_question
from bench.memory_api import ROOT, ApiClient, ItachiServer, percentile

BATCH = 500
CATEGORIES = (1, 2, 3, 4)
METRICS = ("R@5", "R@10", "R@20", "MRR", "S@5", "S@10")


def ingest(client: ApiClient, conversations: list[Conversation]) -> tuple[dict[str, set[str]], int, float]:
    """Store every turn; return memory id -> turn ids, how many turns were deduplicated, seconds."""
    behind: dict[str, set[str]] = defaultdict(set)
    deduplicated, started = 0, time.perf_counter()
    for conv in conversations:
        for start in range(0, len(conv.turns), BATCH):
            turns = conv.turns[start:start + BATCH]
            answer = client.call("POST", "/api/memory/batch", {"memories": [
                {"project": f"locomo-{conv.sample_id}", "category": "conversation", "content": t.text,
                 "created_at": t.created_at.isoformat(),
                 "metadata": {"dia_id": t.dia_id, "session": t.session, "speaker": t.speaker}}
                for t in turns]})
            for turn, memory_id, dup in zip(turns, answer["ids"], answer["deduplicated"], strict=True):
                behind[memory_id].add(turn.dia_id)
                deduplicated += int(dup)
    return behind, deduplicated, time.perf_counter() - started


def asked(conversations: list[Conversation]) -> Iterator[tuple[int, Conversation, Question]]:
    for n, conv in enumerate(conversations):
        for q in conv.questions:
            if q.category in CATEGORIES and q.evidence:
                yield n, conv, q


def run_mode(client: ApiClient, conversations: list[Conversation], behind: dict[str, set[str]],
             mode: str) -> dict[str, Any]:
    """Ask every question in `mode`; score the answers and time the requests."""
    ranked: dict[str, list[str]] = {}
    latencies, tokens = [], []
    for _, conv, q in asked(conversations):
        answer = client.search(q.text, f"locomo-{conv.sample_id}", 20, mode, include_global=False)
        latencies.append(client.last_ms)
        tokens.append(sum(len(r["content"]) for r in answer["results"][:10]) / 4)
        ranked[q.qid] = [r["id"] for r in answer["results"]]
    return {**evaluate(conversations, behind, ranked), "ranked": ranked,
            "latency_p50": percentile(latencies, 50), "latency_p95": percentile(latencies, 95),
            "tokens": statistics.mean(tokens)}


def evaluate(conversations: list[Conversation], behind: dict[str, set[str]],
             ranked_ids: dict[str, list[str]]) -> dict[str, Any]:
    scores: dict[str, dict[int, list[dict[str, float]]]] = {"cited": defaultdict(list),
                                                            "audited": defaultdict(list)}
    halves: dict[int, list[float]] = defaultdict(list)
    for n, _, q in asked(conversations):
        ranked = [behind.get(i, set()) for i in ranked_ids[q.qid]]
        cited = score_question(ranked, q.evidence)
        scores["cited"][q.category].append(cited)
        if q.audited:
            scores["audited"][q.category].append(score_question(ranked, q.audited))
        halves[0 if n < len(conversations) // 2 else 1].append(cited["R@10"])
    return {"scores": scores, "halves": [statistics.mean(h) for h in halves.values()]}


def rank_fusion(*lists: list[str], k: int = 60) -> list[str]:
    """Reciprocal rank fusion with equal weights: the naive way to combine two rankings."""
    fused: dict[str, float] = defaultdict(float)
    for ranking in lists:
        for rank, ident in enumerate(ranking):
            fused[ident] += 1.0 / (k + rank + 1)
    return sorted(fused, key=lambda ident: -fused[ident])[:20]


def mean_of(rows: list[dict[str, float]], metric: str) -> float:
    return statistics.mean(r[metric] for r in rows) if rows else float("nan")


def table(label: str, result: dict[str, Any]) -> list[str]:
    lines = [f"\n### {label}\n", "| category | questions | " + " | ".join(METRICS) + " |",
             "|---" * (len(METRICS) + 2) + "|"]
    cited, audited = result["scores"]["cited"], result["scores"]["audited"]
    for cat in (*CATEGORIES, "all"):
        c = [r for k in CATEGORIES for r in cited[k]] if cat == "all" else cited[cat]
        a = [r for k in CATEGORIES for r in audited[k]] if cat == "all" else audited[cat]
        cells = [f"{mean_of(c, m):.3f} / {mean_of(a, m):.3f}" for m in METRICS]
        lines.append(f"| {cat} | {len(c)} | " + " | ".join(cells) + " |")
    halves = "turn R@10 on conversations 1-5 / 6-10: " + " / ".join(f"{h:.3f}" for h in result["halves"])
    if "latency_p50" in result:
        lines.append(f"\nsearch latency p50 {result['latency_p50']:.1f} ms, "
                     f"p95 {result['latency_p95']:.1f} ms; "
                     f"mean tokens in the top 10: {result['tokens']:.0f}; {halves}")
    else:
        lines.append(f"\n{halves}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "benchdata")
    parser.add_argument("--weights", nargs="+", default=["0.4,0.6", "0.7,0.3"],
                        help="vector,text weight pairs for hybrid mode; the first is used for all modes")
    parser.add_argument("--out", type=Path, help="also write the raw figures as JSON")
    args = parser.parse_args()
    conversations = load(args.data)
    pairs = [tuple(float(x) for x in w.split(",")) for w in args.weights]

    def env(pair: tuple[float, ...]) -> dict[str, str]:
        return {"ITACHI_SEARCH_VECTOR_WEIGHT": str(pair[0]), "ITACHI_SEARCH_TEXT_WEIGHT": str(pair[1])}

    server = ItachiServer(env=env(pairs[0])).start()
    results: dict[str, Any] = {}
    try:
        behind, deduplicated, seconds = ingest(server.client(), conversations)
        turns = sum(len(c.turns) for c in conversations)
        print(f"ingested {turns} turns into {len(conversations)} projects in {seconds:.0f} s "
              f"({turns / seconds:.0f} turns/s); {deduplicated} reinforced an existing memory")
        for mode in ("hybrid", "text", "vector"):
            label = f"{mode} (vector {pairs[0][0]}, text {pairs[0][1]})" if mode == "hybrid" else mode
            results[label] = run_mode(server.client(), conversations, behind, mode)
        text, vector = results["text"]["ranked"], results["vector"]["ranked"]
        results["rank fusion of text and vector (equal weights, k=60; computed by this script)"] = evaluate(
            conversations, behind, {qid: rank_fusion(text[qid], vector[qid]) for qid in text})
        for pair in pairs[1:]:
            server.restart(env(pair))
            results[f"hybrid (vector {pair[0]}, text {pair[1]})"] = run_mode(server.client(), conversations,
                                                                             behind, "hybrid")
    finally:
        server.stop()
    print("\nCells: cited evidence / audited evidence. R@k = turn recall, S@k = session recall_all.")
    for label, result in results.items():
        print("\n".join(table(label, result)))
    if args.out:
        args.out.write_text(json.dumps({k: {f: v for f, v in r.items() if f != "ranked"}
                                        for k, r in results.items()}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
