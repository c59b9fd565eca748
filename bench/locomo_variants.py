"""Retrieval variants on top of the shipped hybrid search, evaluated in process on LoCoMo.

Each variant re-ranks what the server's own search statement returns (`PostgresMemorySearch`,
shipped weights, a pool of 40) with one general technique, nothing fitted per question:
- neighbours (w, lam, top): the memories stored just before and after each of the `top` best
  hits in the same project (at most `w` each side, within 30 minutes of it: the same conversation
  or working session) join the candidates with `lam` times their neighbour's score;
- prf (beta): pseudo-relevance feedback: a second search whose text is the question plus the
  three best hits, its scores added with weight `beta` (and the two combined).
Parameters are chosen on conversations 1-5 and reported on 6-10 (`bench/locomo.py --variants`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from bench.locomo_data import Conversation
from bench.locomo_report import asked

Chosen = list[tuple[int, Conversation]]
WINDOW = timedelta(minutes=30)
NEIGHBOURS = [(1, 0.5, 5), (1, 0.7, 5), (1, 0.85, 5), (2, 0.7, 5), (1, 0.7, 10), (2, 0.5, 10)]
PRF = [0.3, 0.6]


def _timeline(conn: Any, project: str) -> tuple[list[str], dict[str, int], list[Any], dict[str, str]]:
    rows = conn.execute("SELECT id, created_at, content FROM memories WHERE project = %s"
                        " ORDER BY created_at, id", (project,)).fetchall()
    ids = [str(r["id"]) for r in rows]
    return ids, {m: i for i, m in enumerate(ids)}, [r["created_at"] for r in rows], \
        {str(r["id"]): r["content"] for r in rows}


def with_neighbours(scored: dict[str, float], order: list[str], ranked: list[str], timeline: tuple[Any, ...],
                    w: int, lam: float, top: int) -> list[str]:
    ids, index, times, _ = timeline
    out = dict(scored)
    for parent in ranked[:top]:
        i = index[parent]
        for j in range(max(0, i - w), min(len(ids), i + w + 1)):
            if j != i and abs(times[j] - times[i]) <= WINDOW:
                out[ids[j]] = max(out.get(ids[j], 0.0), lam * scored[parent])
    return sorted(out, key=lambda m: (-out[m], order.index(m) if m in order else len(order)))


def variants(url: str, chosen: Chosen, weights: tuple[float, float, float]
             ) -> Iterator[tuple[str, dict[str, list[str]]]]:
    from chalicelib.kernel.database import Database
    from chalicelib.kernel.redaction import redact
    from chalicelib.memory.adapters.embedders import local_embedder
    from chalicelib.memory.adapters.memory_search import PostgresMemorySearch, VectorFeatures
    from chalicelib.memory.domain.memory_model import SearchScope
    from chalicelib.memory.domain.search_scoring import SearchWeights
    from chalicelib.memory.services.memory_service import MAX_QUERY_CHARS

    questions = [(conv, q, redact(q.text).strip()[:MAX_QUERY_CHARS]) for _, conv, q in asked(chosen)]
    vectors = local_embedder().embed([text for _, _, text in questions])
    weight = SearchWeights(*weights).normalised()
    results: dict[str, dict[str, list[str]]] = defaultdict(dict)
    db = Database(url)
    try:
        with db.connection() as conn:
            search = PostgresMemorySearch(conn, VectorFeatures())
            timelines = {c.sample_id: _timeline(conn, f"locomo-{c.sample_id}") for _, c in chosen}
            for (conv, q, text), vector in zip(questions, vectors, strict=True):
                scope = SearchScope((f"locomo-{conv.sample_id}",))
                hits = search.search(text, vector, scope, mode="hybrid", limit=40, weights=weight)
                scored = {h.id: h.score for h in hits}
                order = [h.id for h in hits]
                results["shipped hybrid (pool 40, top 20)"][q.qid] = order[:20]
                timeline = timelines[conv.sample_id]
                for w, lam, top in NEIGHBOURS:
                    ranked = with_neighbours(scored, order, order, timeline, w, lam, top)
                    results[f"neighbours w={w} lam={lam} top={top}"][q.qid] = ranked[:20]
                contents = timeline[3]
                feedback = text + " " + " ".join(contents[m] for m in order[:3])
                again = search.search(feedback[:MAX_QUERY_CHARS], vector, scope, mode="hybrid", limit=40,
                                      weights=weight)
                for beta in PRF:
                    fused = dict(scored)
                    for h in again:
                        fused[h.id] = fused.get(h.id, 0.0) + beta * h.score
                    results[f"prf beta={beta}"][q.qid] = sorted(fused, key=lambda m: -fused[m])[:20]
                    best = results[f"prf beta={beta}"][q.qid]
                    fused_scores = {m: fused[m] for m in best}
                    ranked = with_neighbours(fused_scores, best, best, timeline, 1, 0.7, 5)
                    results[f"prf beta={beta} + neighbours w=1 lam=0.7 top=5"][q.qid] = ranked[:20]
    finally:
        db.close()
    yield from results.items()


def behind_from(url: str, chosen: Chosen) -> dict[str, set[str]]:
    """Memory id -> the turn ids it stands for: its own `dia_id`, and turns with the same text
    (exact repeats reinforced it); a turn merged as a near duplicate of other words is not counted."""
    import psycopg
    from psycopg.rows import dict_row

    behind: dict[str, set[str]] = defaultdict(set)
    with psycopg.connect(url, row_factory=dict_row) as conn:
        for _, conv in chosen:
            rows = conn.execute("SELECT id, content, metadata ->> 'dia_id' AS dia FROM memories"
                                " WHERE project = %s", (f"locomo-{conv.sample_id}",)).fetchall()
            by_text = {" ".join(r["content"].split()): str(r["id"]) for r in rows}
            for r in rows:
                behind[str(r["id"])].add(r["dia"])
            for turn in conv.turns:
                memory_id = by_text.get(" ".join(turn.text.split()))
                if memory_id:
                    behind[memory_id].add(turn.dia_id)
    return behind


def main() -> int:
    """Evaluate the variants on the memories a `bench/locomo.py` server stored (`--home` of it)."""
    import argparse
    import sys
    from pathlib import Path

    from bench.locomo_data import load
    from bench.locomo_report import evaluate, summary
    from infra.local.postgres import start_postgres

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--home", type=Path, required=True)
    data = Path(__file__).resolve().parents[2] / "shared" / "benchdata"
    parser.add_argument("--data", type=Path, default=data)
    parser.add_argument("--weights", default="0.4,0.6,0.1", help="vector,text,recency")
    args = parser.parse_args()
    everything = load(args.data)
    chosen = list(enumerate(everything, start=1))
    weights = tuple(float(x) for x in args.weights.split(","))
    handle, url = start_postgres(args.home)
    try:
        behind = behind_from(url, chosen)
        results = {name: evaluate(chosen, behind, ranked)
                   for name, ranked in variants(url, chosen, (weights[0], weights[1], weights[2]))}
    finally:
        handle.cleanup()
    print("\n".join(summary(results)))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
