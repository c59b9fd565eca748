"""LoCoMo scoring and tables: per-category means against cited and audited evidence, and the
turn R@10 of conversations 1-5 (where settings are chosen) and 6-10 (held out)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from bench.locomo_data import Conversation, Question, score_question

CATEGORIES = (1, 2, 3, 4)
METRICS = ("R@5", "R@10", "R@20", "MRR", "S@5", "S@10")


def asked(conversations: list[tuple[int, Conversation]]) -> Iterator[tuple[int, Conversation, Question]]:
    """(1-based conversation number, conversation, question) for every scored question."""
    for n, conv in conversations:
        for q in conv.questions:
            if q.category in CATEGORIES and q.evidence:
                yield n, conv, q


def evaluate(conversations: list[tuple[int, Conversation]], behind: dict[str, set[str]],
             ranked_ids: dict[str, list[str]]) -> dict[str, Any]:
    scores: dict[str, dict[int, list[dict[str, float]]]] = {"cited": defaultdict(list),
                                                            "audited": defaultdict(list)}
    halves: dict[str, list[float]] = defaultdict(list)
    mrr: dict[str, list[float]] = defaultdict(list)
    for n, _, q in asked(conversations):
        ranked = [behind.get(i, set()) for i in ranked_ids[q.qid]]
        cited = score_question(ranked, q.evidence)
        scores["cited"][q.category].append(cited)
        if q.audited:
            scores["audited"][q.category].append(score_question(ranked, q.audited))
        halves["1-5" if n <= 5 else "6-10"].append(cited["R@10"])
        mrr["1-5" if n <= 5 else "6-10"].append(cited["MRR"])
    return {"scores": scores, "halves": {k: statistics.mean(v) for k, v in sorted(halves.items())},
            "halves_mrr": {k: statistics.mean(v) for k, v in sorted(mrr.items())}}


def mean_of(rows: list[dict[str, float]], metric: str) -> float:
    return statistics.mean(r[metric] for r in rows) if rows else float("nan")


def overall(result: dict[str, Any], metric: str = "R@10") -> float:
    return mean_of([r for k in CATEGORIES for r in result["scores"]["cited"][k]], metric)


def table(label: str, result: dict[str, Any]) -> list[str]:
    lines = [f"\n### {label}\n", "| category | questions | " + " | ".join(METRICS) + " |",
             "|---" * (len(METRICS) + 2) + "|"]
    cited, audited = result["scores"]["cited"], result["scores"]["audited"]
    for cat in (*CATEGORIES, "all"):
        c = [r for k in CATEGORIES for r in cited[k]] if cat == "all" else cited[cat]
        a = [r for k in CATEGORIES for r in audited[k]] if cat == "all" else audited[cat]
        cells = [f"{mean_of(c, m):.3f} / {mean_of(a, m):.3f}" for m in METRICS]
        lines.append(f"| {cat} | {len(c)} | " + " | ".join(cells) + " |")
    halves = "; ".join(f"turn R@10 on conversations {k}: {v:.3f}" for k, v in result["halves"].items())
    if "latency_p50" in result:
        lines.append(f"\nsearch latency p50 {result['latency_p50']:.1f} ms, "
                     f"p95 {result['latency_p95']:.1f} ms; "
                     f"mean tokens in the top 10: {result['tokens']:.0f}; {halves}")
    else:
        lines.append(f"\n{halves}")
    return lines


def summary(results: dict[str, dict[str, Any]]) -> list[str]:
    """One line per setting tried: turn R@10 and MRR overall and per half."""
    lines = ["\n### Every setting tried (turn R@10 / MRR, cited evidence)\n",
             "| setting | all | conversations 1-5 | conversations 6-10 | MRR |", "|---|---|---|---|---|"]
    for label, result in results.items():
        halves = result["halves"]
        lines.append(f"| {label} | {overall(result):.3f} | {halves.get('1-5', float('nan')):.3f} | "
                     f"{halves.get('6-10', float('nan')):.3f} | {overall(result, 'MRR'):.3f} |")
    return lines
