"""LoCoMo recall for each way the memories may be dated, in process on the memories a
`bench/locomo.py` server stored (its `--home`), with BM25 beside:

    .venv/bin/python -m bench.locomo_dates --home H [--convs 1-5] [--dates original shifted once]

For each `--dates` (each turn at its session's date as it was, moved so each conversation ends
now, or every turn at one time: a bulk import; `locomo_variants.set_dates`) it ranks every
question with the server's own search (`PostgresMemorySearch.search`, hybrid, the deployment's
weights) twice: with the re-rankings (neighbours in write order, the dates a query names) and
without them. BM25 over plain words and over Postgres's english lexemes is computed here on the
same memories (`bench/bm25.py`); it does not see dates. Turn recall@10 of categories 1-4 per
half (1-5 where settings are chosen, 6-10 held out).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from bench.locomo_data import Conversation, load
from bench.locomo_report import evaluate, summary

ROOT = Path(__file__).resolve().parents[1]
Chosen = list[tuple[int, Conversation]]


def memory_texts(url: str, chosen: Chosen) -> dict[str, dict[str, str]]:
    """Project -> {memory id: content} of the chosen conversations."""
    import psycopg

    texts: dict[str, dict[str, str]] = defaultdict(dict)
    with psycopg.connect(url) as conn:
        for _, conv in chosen:
            project = f"locomo-{conv.sample_id}"
            for ident, content in conn.execute("SELECT id, content FROM memories WHERE project = %s"
                                               " ORDER BY seq", (project,)).fetchall():
                texts[project][str(ident)] = content
    return texts


def main() -> int:
    from bench.bm25 import english_lexemes, words
    from bench.locomo import bm25_ranking, parse_convs
    from bench.locomo_sweep import rankings
    from bench.locomo_variants import behind_from, set_dates
    from chalicelib.kernel.database import Database
    from chalicelib.kernel.settings import Settings
    from chalicelib.memory.domain.search_scoring import SearchWeights
    from infra.local.postgres import start_postgres

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "benchdata")
    parser.add_argument("--convs", default="all")
    parser.add_argument("--dates", nargs="+", choices=("original", "shifted", "once"),
                        default=["original", "shifted", "once"])
    args = parser.parse_args()
    everything = load(args.data)
    chosen = [(n, everything[n - 1]) for n in parse_convs(args.convs, len(everything))]
    default = {name: float(field.default) for name, field in Settings.model_fields.items()
               if name.startswith("search_") and isinstance(field.default, float)}
    shipped = SearchWeights(default["search_vector_weight"], default["search_text_weight"],
                            default["search_recency_weight"], default["search_recency_half_life_days"],
                            default["search_neighbours_weight"], default["search_dates_weight"])
    bare = SearchWeights(shipped.vector, shipped.text, shipped.recency, shipped.half_life_days)
    handle, url = start_postgres(args.home)
    results = {}
    try:
        behind = behind_from(url, chosen)
        texts = memory_texts(url, chosen)
        for label, tokenise in (("words", lambda ts: [words(t) for t in ts]),
                                ("english lexemes", lambda ts: english_lexemes(url, ts))):
            results[f"BM25 over {label} (any dates)"] = evaluate(chosen, behind,
                                                                 bm25_ranking(chosen, texts, tokenise))
        for dates in args.dates:
            db = Database(url)
            try:
                with db.connection() as conn:
                    set_dates(conn, chosen, dates)
            finally:
                db.close()
            with_, without = rankings(url, chosen, [shipped, bare])
            results[f"dates {dates}: hybrid with re-rankings"] = evaluate(chosen, behind, with_)
            results[f"dates {dates}: hybrid without re-rankings"] = evaluate(chosen, behind, without)
            print("\n".join(summary(results)[-2:]), flush=True)
    finally:
        handle.cleanup()
    print("\n".join(summary(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
