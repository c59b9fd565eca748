"""LoCoMo retrieval benchmark through the real API: ingest every conversation, ask every question.

    .venv/bin/python bench/locomo.py [--data ../shared/benchdata] [--convs 1-5]
        [--weights 0.4,0.6 0.7,0.3] [--recency 0.1 0 0.3] [--dates shifted|original|once] [--home H]

Starts its own `itachi up` in a throwaway home (local MiniLM embedder), stores each chosen
conversation in its own project with `POST /api/memory/batch` (turn text "<speaker>: <text>"
plus the image caption, `dia_id` in metadata, `created_at` from the session date, each LoCoMo
session its own `session_id` as a client's hooks send theirs), then asks
each category 1-4 question with `GET /api/memory/search` (limit 20) in hybrid, text-only and
vector-only mode with the first weights and recency through the API; every other `--weights`
vector,text pair and every other `--recency` weight is then run in hybrid mode in process, with
the server's own search statement on the same memories (`bench/locomo_sweep.py`, which also
checks that the first setting ranks the same there as through the API). References computed
here on the same memories: equal-weight rank fusion of the text and vector rankings, and Okapi
BM25 over plain words and over Postgres's english lexemes (`bench/bm25.py`).

`--convs` picks conversations by their 1-based position (`1-5`, `6-10`, `1,3`): settings are
chosen on 1-5 and checked on 6-10. With `--dates shifted` (the default) each conversation's
timeline is moved so that its last session ends now, as if the questions came right after it:
the recency weight then sees months between sessions, as in use. With `original` every turn
is years old and recency changes almost nothing. With `once` every turn is stored at one and
the same time (now), as `itachi import`, a backfill or an export round trip store a history: the
memories carry their write order (the order of the batch) and nothing else about time.

Prints markdown tables (turn recall@5/10/20, MRR and session recall_all@5/10 by category,
against the cited and the audited evidence; latency; tokens) and one summary line per setting.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bm25 import Bm25Index, english_lexemes, words
from bench.locomo_data import Conversation, Turn, load
from bench.locomo_report import asked, evaluate, summary, table
from bench.locomo_sweep import agreement, sweep
from bench.locomo_sweep import label as label_of
from bench.memory_api import ROOT, ApiClient, ItachiServer, percentile

BATCH = 50  # turns per request: each request's embedding stays well inside the write deadline
Chosen = list[tuple[int, Conversation]]


def parse_convs(spec: str, total: int) -> list[int]:
    """`1-5`, `6-10`, `1,3,7` or `all` -> 1-based conversation numbers."""
    if spec == "all":
        return list(range(1, total + 1))
    numbers: list[int] = []
    for part in spec.split(","):
        low, _, high = part.partition("-")
        numbers += range(int(low), int(high or low) + 1)
    if not numbers or min(numbers) < 1 or max(numbers) > total:
        raise SystemExit(f"--convs {spec}: conversations are numbered 1 to {total}")
    return sorted(set(numbers))


def stored_at(turns: Sequence[Turn], dates: str, now: datetime) -> list[datetime]:
    """Each turn's `created_at` under `--dates` (shifted, original or once)."""
    if dates == "once":
        return [now] * len(turns)
    shift = now - max(t.created_at for t in turns) if dates == "shifted" else timedelta(0)
    return [t.created_at + shift for t in turns]


def ingest(client: ApiClient, chosen: Chosen, dates: str
           ) -> tuple[dict[str, set[str]], dict[str, dict[str, str]], int, float]:
    """Store every turn; return memory id -> turn ids, project -> {memory id: text}, dups, seconds."""
    behind: dict[str, set[str]] = defaultdict(set)
    texts: dict[str, dict[str, str]] = defaultdict(dict)
    deduplicated, started, now = 0, time.perf_counter(), datetime.now(UTC)
    for _, conv in chosen:
        times = dict(zip((t.dia_id for t in conv.turns), stored_at(conv.turns, dates, now), strict=True))
        project = f"locomo-{conv.sample_id}"
        for start in range(0, len(conv.turns), BATCH):
            turns = conv.turns[start:start + BATCH]
            answer = client.call("POST", "/api/memory/batch", {"memories": [
                {"project": project, "category": "conversation", "content": t.text,
                 "created_at": times[t.dia_id].isoformat(), "session_id": f"{conv.sample_id}-{t.session}",
                 "metadata": {"dia_id": t.dia_id, "session": t.session, "speaker": t.speaker}}
                for t in turns]})
            for turn, memory_id, dup in zip(turns, answer["ids"], answer["deduplicated"], strict=True):
                behind[memory_id].add(turn.dia_id)
                texts[project].setdefault(memory_id, turn.text)
                deduplicated += int(dup)
    return behind, texts, deduplicated, time.perf_counter() - started


def run_mode(client: ApiClient, chosen: Chosen, behind: dict[str, set[str]], mode: str) -> dict[str, Any]:
    """Ask every question in `mode`; score the answers and time the requests."""
    ranked: dict[str, list[str]] = {}
    latencies, tokens = [], []
    for _, conv, q in asked(chosen):
        answer = client.search(q.text, f"locomo-{conv.sample_id}", 20, mode, include_global=False)
        if answer["mode"] != mode:  # the query embedding missed its deadline: the figures would lie
            raise SystemExit(f"{mode} search answered in {answer['mode']} mode ({answer.get('degraded')})")
        latencies.append(client.last_ms)
        tokens.append(sum(len(r["content"]) for r in answer["results"][:10]) / 4)
        ranked[q.qid] = [r["id"] for r in answer["results"]]
    return {**evaluate(chosen, behind, ranked), "ranked": ranked,
            "latency_p50": percentile(latencies, 50), "latency_p95": percentile(latencies, 95),
            "tokens": statistics.mean(tokens)}


def bm25_ranking(chosen: Chosen, texts: dict[str, dict[str, str]],
                 tokenise: Callable[[Sequence[str]], list[list[str]]]) -> dict[str, list[str]]:
    indexes = {p: Bm25Index(list(docs), tokenise(list(docs.values()))) for p, docs in texts.items()}
    questions = list(asked(chosen))
    query_tokens = tokenise([q.text for _, _, q in questions])
    return {q.qid: indexes[f"locomo-{conv.sample_id}"].rank(tokens, 20)
            for (_, conv, q), tokens in zip(questions, query_tokens, strict=True)}


def postgres_url(server: ItachiServer) -> tuple[Any, str]:
    """Attach to the embedded Postgres that `itachi up` runs (detach with handle.cleanup())."""
    from infra.local.postgres import start_postgres

    return start_postgres(server.home)


def rank_fusion(*lists: list[str], k: int = 60) -> list[str]:
    """Reciprocal rank fusion with equal weights: the naive way to combine two rankings."""
    fused: dict[str, float] = defaultdict(float)
    for ranking in lists:
        for rank, ident in enumerate(ranking):
            fused[ident] += 1.0 / (k + rank + 1)
    return sorted(fused, key=lambda ident: -fused[ident])[:20]


def settings_env(vector: float, text: float, recency: float) -> dict[str, str]:
    """The weights, and a query-embedding deadline a loaded box cannot miss (ranking, not latency)."""
    return {"ITACHI_SEARCH_VECTOR_WEIGHT": str(vector), "ITACHI_SEARCH_TEXT_WEIGHT": str(text),
            "ITACHI_SEARCH_RECENCY_WEIGHT": str(recency), "ITACHI_EMBEDDING_TIMEOUT_S": "120"}


def without_vector(url: str) -> int:
    """Memories stored without an embedding (their write missed the embedding deadline)."""
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM memories WHERE embedding IS NULL").fetchone()
    return int(row[0]) if row else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "benchdata")
    parser.add_argument("--convs", default="all", help="1-based conversations: 1-5, 6-10, 1,3 or all")
    parser.add_argument("--weights", nargs="+", default=["0.4,0.6", "0.7,0.3"],
                        help="vector,text weight pairs for hybrid mode; the first is used for all modes")
    parser.add_argument("--recency", nargs="+", type=float, default=[0.1],
                        help="recency weights; the first is used with every weights pair")
    parser.add_argument("--dates", choices=("shifted", "original", "once"), default="shifted",
                        help="session dates moved to end now, as they were, or every turn at one time")
    parser.add_argument("--variants", action="store_true",
                        help="also evaluate the re-ranking variants of bench/locomo_variants.py")
    parser.add_argument("--out", type=Path, help="also write the raw figures as JSON")
    parser.add_argument("--home", type=Path, help="keep the server's home here (for bench/locomo_dates.py)")
    args = parser.parse_args()
    everything = load(args.data)
    chosen = [(n, everything[n - 1]) for n in parse_convs(args.convs, len(everything))]
    pairs = [tuple(float(x) for x in w.split(",")) for w in args.weights]
    base = settings_env(pairs[0][0], pairs[0][1], args.recency[0])
    suffix = f"vector {pairs[0][0]}, text {pairs[0][1]}, recency {args.recency[0]}"

    server = ItachiServer(args.home, env=base).start()
    results: dict[str, Any] = {}
    try:
        behind, texts, deduplicated, seconds = ingest(server.client(), chosen, args.dates)
        turns = sum(len(c.turns) for _, c in chosen)
        print(f"conversations {args.convs}, dates {args.dates}: ingested {turns} turns into {len(chosen)} "
              f"projects in {seconds:.0f} s ({turns / seconds:.0f} turns/s); {deduplicated} reinforced "
              "an existing memory", flush=True)
        handle, url = postgres_url(server)
        try:
            if missing := without_vector(url):
                raise SystemExit(f"{missing} memories were stored without a vector: rerun on a quieter box")
            for mode in ("hybrid", "text", "vector"):
                results[f"{mode} ({suffix})" if mode == "hybrid" else mode] = run_mode(
                    server.client(), chosen, behind, mode)
                print(summary({mode: results[f"{mode} ({suffix})" if mode == "hybrid" else mode]})[-1],
                      flush=True)
            text, vector = results["text"]["ranked"], results["vector"]["ranked"]
            results["rank fusion of text and vector (equal weights, k=60; computed by this script)"] = \
                evaluate(chosen, behind, {qid: rank_fusion(text[qid], vector[qid]) for qid in text})
            for label, tokenise in (("words", lambda ts: [words(t) for t in ts]),
                                    ("english lexemes", lambda ts: english_lexemes(url, ts))):
                results[f"BM25 over {label} (k1 1.2, b 0.75; computed by this script)"] = evaluate(
                    chosen, behind, bm25_ranking(chosen, texts, tokenise))
            first = (pairs[0][0], pairs[0][1], args.recency[0])
            others = [(v, t, args.recency[0]) for v, t in pairs[1:]] + \
                     [(pairs[0][0], pairs[0][1], r) for r in args.recency[1:]]
            for setting, ranked in sweep(url, chosen, [first, *others]):
                if setting == first:
                    same = agreement(results[f"hybrid ({suffix})"]["ranked"], ranked)
                    print(f"in process, {label_of(first)}: the same top 10 as through the API for "
                          f"{same:.1%} of the questions", flush=True)
                    continue
                results[label_of(setting)] = evaluate(chosen, behind, ranked)
                print("\n".join(summary({label_of(setting): results[label_of(setting)]})[-1:]), flush=True)
            if args.variants:
                from bench.locomo_variants import variants

                for name, ranked in variants(url, chosen, args.dates):
                    results[name] = evaluate(chosen, behind, ranked)
                    print(summary({name: results[name]})[-1], flush=True)
        finally:
            handle.cleanup()  # detach: the server stays up while `itachi up` holds it
    finally:
        server.stop()
    print("\nCells: cited evidence / audited evidence. R@k = turn recall, S@k = session recall_all.")
    for label, result in results.items():
        print("\n".join(table(label, result)))
    print("\n".join(summary(results)))
    if args.out:
        args.out.write_text(json.dumps({k: {f: v for f, v in r.items() if f != "ranked"}
                                        for k, r in results.items()}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
