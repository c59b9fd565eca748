"""Retrieval variants on top of the shipped hybrid search, evaluated in process on LoCoMo.

    .venv/bin/python -m bench.locomo_variants --home H [--dates original|shifted|once] [--out F]

Runs on the memories a `bench/locomo.py` server stored (its `--home`). Each variant re-ranks what
the server's own search statement returns (`PostgresMemorySearch`, a pool of 40) with general
techniques only, nothing fitted per question or per dataset:
- neighbours (w, lam, top): the memories stored just before and after each of the `top` best
  hits in the same project (at most `w` each side, within 30 minutes: the same conversation or
  working session) join with `lam` times their neighbour's score (`SearchWeights.neighbours`);
- dates (w): a query naming a date or a time relative to now favours memories stored near it:
  score x (1 - w + w x closeness) (`chalicelib.memory.domain.query_dates`, `SearchWeights.dates`);
- fusion: other vector / text weights, recency 0, and reciprocal rank fusion of the text-only
  and vector-only rankings at several k;
- prf (beta): pseudo-relevance feedback: a second search with the question plus its three best
  hits, added with weight `beta` (a second statement per search).
`--dates original` first moves every memory back to the conversation's own dates (the
questions name them: "on 8 May, 2023"); `shifted` moves them so each conversation ends now,
as `bench/locomo.py` stores them by default; `once` stores them all at one time (a bulk
import). Parameters are chosen on conversations 1-5, read on 6-10.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.locomo_data import Conversation
from bench.locomo_report import asked

Chosen = list[tuple[int, Conversation]]
Ranked = dict[str, float]
WINDOW = timedelta(minutes=30)
NEIGHBOURS = [(2, 0.7, 5), (1, 0.7, 5), (2, 0.6, 5), (2, 0.8, 5), (3, 0.7, 5), (2, 0.7, 3)]
DATES = [0.1, 0.2, 0.3, 0.5, 0.7]
RRF_K = [10, 30, 60]
WEIGHTS = [(0.3, 0.7, 0.1), (0.5, 0.5, 0.1), (0.4, 0.6, 0.0)]
SHIPPED = (0.4, 0.6, 0.1)


def _timeline(conn: Any, project: str) -> tuple[list[str], dict[str, int], list[Any], dict[str, str]]:
    rows = conn.execute("SELECT id, created_at, content FROM memories WHERE project = %s"
                        " ORDER BY seq", (project,)).fetchall()
    ids = [str(r["id"]) for r in rows]
    return ids, {m: i for i, m in enumerate(ids)}, [r["created_at"] for r in rows], \
        {str(r["id"]): r["content"] for r in rows}


def ranked_ids(scored: Ranked) -> list[str]:
    return sorted(scored, key=lambda m: -scored[m])[:20]


def with_neighbours(scored: Ranked, timeline: tuple[Any, ...], w: int, lam: float, top: int) -> Ranked:
    ids, index, times, _ = timeline
    out = dict(scored)
    for parent in ranked_ids(scored)[:top]:
        i = index[parent]
        for j in range(max(0, i - w), min(len(ids), i + w + 1)):
            if j != i and abs(times[j] - times[i]) <= WINDOW:
                out[ids[j]] = max(out.get(ids[j], 0.0), lam * scored[parent])
    return out


def with_dates(scored: Ranked, text: str, times: dict[str, datetime], weight: float) -> Ranked:
    from chalicelib.memory.domain.query_dates import date_factor, query_window

    window = query_window(text, datetime.now(UTC))
    return {m: s * date_factor(window, times[m], weight) for m, s in scored.items()}


def rank_fusion(rankings: list[list[str]], k: int) -> Ranked:
    fused: Ranked = defaultdict(float)
    for ranking in rankings:
        for rank, ident in enumerate(ranking):
            fused[ident] += 1.0 / (k + rank + 1)
    return dict(fused)


def _putter(results: dict[str, dict[str, list[str]]], qid: str) -> Callable[[str, Ranked], None]:
    def put(name: str, scored: Ranked) -> None:
        results[name][qid] = ranked_ids(scored)
    return put


def table(results: dict[str, dict[str, Any]]) -> list[str]:
    """One row per variant: turn R@10 all / 1-5 / 6-10, MRR, R@10 of categories 1 and 2."""
    from bench.locomo_report import mean_of, overall

    lines = ["| variant | R@10 all | R@10 1-5 | R@10 6-10 | MRR | MRR 1-5 | MRR 6-10 | R@10 cat 1 "
             "| R@10 cat 2 |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        cited = r["scores"]["cited"]
        cells = [overall(r), r["halves"]["1-5"], r["halves"]["6-10"], overall(r, "MRR"),
                 r["halves_mrr"]["1-5"], r["halves_mrr"]["6-10"], mean_of(cited[1], "R@10"),
                 mean_of(cited[2], "R@10")]
        lines.append(f"| {name} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    return lines


def set_dates(conn: Any, chosen: Chosen, dates: str) -> None:
    """Move each conversation's memories to its own dates (original), to end now (shifted) or all
    to one time, now (once: a bulk import); each memory by the turn it stands for (`dia_id`)."""
    from bench.locomo import stored_at

    now = datetime.now(UTC)
    for _, conv in chosen:
        times = stored_at(conv.turns, dates, now)
        conn.execute("UPDATE memories m SET created_at = d.t, last_reinforced_at = d.t"
                     " FROM unnest(%s::text[], %s::timestamptz[]) AS d(dia, t)"
                     " WHERE m.project = %s AND m.metadata ->> 'dia_id' = d.dia",
                     ([t.dia_id for t in conv.turns], times, f"locomo-{conv.sample_id}"))
    conn.commit()


def variants(url: str, chosen: Chosen, dates: str) -> Iterator[tuple[str, dict[str, list[str]]]]:
    from chalicelib.kernel.database import Database
    from chalicelib.kernel.redaction import redact
    from chalicelib.memory.adapters.embedders import local_embedder
    from chalicelib.memory.adapters.memory_search import PostgresMemorySearch
    from chalicelib.memory.adapters.search_statistics import SearchStatistics
    from chalicelib.memory.domain.memory_model import SearchScope
    from chalicelib.memory.domain.search_scoring import SearchWeights
    from chalicelib.memory.services.memory_service import MAX_QUERY_CHARS

    questions = [(conv, q, redact(q.text).strip()[:MAX_QUERY_CHARS]) for _, conv, q in asked(chosen)]
    vectors = local_embedder().embed([text for _, _, text in questions])
    results: dict[str, dict[str, list[str]]] = defaultdict(dict)
    db = Database(url)
    try:
        with db.connection() as conn:
            set_dates(conn, chosen, dates)
            search = PostgresMemorySearch(conn, SearchStatistics())
            timelines = {c.sample_id: _timeline(conn, f"locomo-{c.sample_id}") for _, c in chosen}
            times = {m: t for tl in timelines.values() for m, t in zip(tl[0], tl[2], strict=True)}
            for (conv, q, text), vector in zip(questions, vectors, strict=True):
                scope = SearchScope((f"locomo-{conv.sample_id}",))

                def run(mode: str, setting: tuple[float, float, float], query: str = text,
                        scope: SearchScope = scope, vector: list[float] = vector) -> Ranked:
                    weights = SearchWeights(*setting, neighbours=0.0, dates=0.0).normalised()
                    hits = search.search(query, vector, scope, mode=mode, limit=40,  # type: ignore[arg-type]
                                         weights=weights)
                    return {h.id: h.score for h in hits}

                timeline = timelines[conv.sample_id]
                put = _putter(results, q.qid)
                base = run("hybrid", SHIPPED)
                put("shipped hybrid (pool 40, top 20)", base)
                for w, lam, top in NEIGHBOURS:
                    put(f"neighbours w={w} lam={lam} top={top}", with_neighbours(base, timeline, w, lam, top))
                for d in DATES:
                    dated = with_dates(base, text, times, d)
                    put(f"dates {d}", dated)
                    put(f"dates {d} + neighbours w=2 lam=0.7 top=5",
                        with_neighbours(dated, timeline, 2, 0.7, 5))
                for setting in WEIGHTS:
                    other = run("hybrid", setting)
                    put(f"weights {setting} + neighbours w=2 lam=0.7 top=5",
                        with_neighbours(other, timeline, 2, 0.7, 5))
                    for d in (0.2, 0.3):
                        put(f"weights {setting} + dates {d} + neighbours w=2 lam=0.7 top=5",
                            with_neighbours(with_dates(other, text, times, d), timeline, 2, 0.7, 5))
                text_rank = ranked_ids(run("text", SHIPPED))
                vector_rank = ranked_ids(run("vector", SHIPPED))
                for k in RRF_K:
                    put(f"rank fusion k={k}", rank_fusion([text_rank, vector_rank], k))
                feedback = text + " " + " ".join(timeline[3][m] for m in ranked_ids(base)[:3])
                again = run("hybrid", SHIPPED, feedback[:MAX_QUERY_CHARS])
                for beta in (0.3, 0.6):
                    fused = dict(base)
                    for m, s in again.items():
                        fused[m] = fused.get(m, 0.0) + beta * s
                    put(f"prf {beta}", fused)
                    put(f"prf {beta} + dates 0.3 + neighbours w=2 lam=0.7 top=5",
                        with_neighbours(with_dates(fused, text, times, 0.3), timeline, 2, 0.7, 5))
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
    import json
    import sys
    from pathlib import Path

    from bench.locomo_data import load
    from bench.locomo_report import evaluate
    from infra.local.postgres import start_postgres

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--home", type=Path, required=True)
    data = Path(__file__).resolve().parents[2] / "shared" / "benchdata"
    parser.add_argument("--data", type=Path, default=data)
    parser.add_argument("--dates", choices=("original", "shifted", "once"), default="original")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()
    chosen = list(enumerate(load(args.data), start=1))
    handle, url = start_postgres(args.home)
    try:
        behind = behind_from(url, chosen)
        results = {name: evaluate(chosen, behind, ranked)
                   for name, ranked in variants(url, chosen, args.dates)}
    finally:
        handle.cleanup()
    print("\n".join(table(results)))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1, default=str))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
