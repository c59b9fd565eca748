"""LongMemEval turn recall through the real API, with and without dates, BM25 beside.

    .venv/bin/python -m bench.longmemeval --data PATH_OR_URL [--questions 24] [--types T ...] [--minutes M]

LongMemEval (Wu et al., ICLR 2025; github.com/xiaowu0162/LongMemEval, MIT) gives each question its
own haystack of chat sessions between a user and an assistant, every turn that holds the answer
labelled `has_answer`. The data is read at bench time, never stored in this repository, from:

- the official file (`longmemeval_s.json` or `longmemeval_s_cleaned.json`: a JSON list of
  instances; huggingface.co/datasets/xiaowu0162/longmemeval-cleaned), a path or an http(s) URL;
- or a directory of one instance per JSON file (a per-question split of the same file).

Questions are taken in question-id order, the same number of each question type in turn
(`--questions`, `--types`); abstention questions (`_abs`) and questions without a labelled turn
are skipped, as they have no evidence to recall; `--minutes` stops taking questions after that
long (the figures then cover the questions done, still the types in turn). Each question's
haystack is stored in a project of its own with `POST /api/memory/batch` (turn text "<role>:
<content>", each haystack session its own `session_id`), twice: each turn at its session's date
moved so that the question is asked now (a second apart within a session), and every turn at
one time (a bulk import). The question is asked with `GET /api/memory/search` (hybrid, limit 20)
in each project. Reported: turn recall@10 (labelled turns in the top 10 over labelled turns), per
question type and overall, and Okapi BM25 over plain words and over Postgres's english lexemes
computed here on the same turns (`bench/bm25.py`). Every figure is held out: nothing was chosen on this set.

`--reuse` with the `--home` of an earlier run asks the questions again on the memories that run
stored (a search change compared on the same memories, each tree's server in turn): a result's
turn is read from its metadata, and only a haystack no run stored yet is stored (an earlier run
stopped by `--minutes` is taken further).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.bm25 import Bm25Index, english_lexemes, words
from bench.memory_api import ApiClient, ItachiServer

BATCH = 40
DATINGS = ("dated", "once")
Instance = dict[str, Any]


def read(source: str) -> list[Instance]:
    """Every instance of the file, directory or URL `source`."""
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=600) as response, \
                tempfile.NamedTemporaryFile(suffix=".json") as copy:
            copy.write(response.read())
            copy.flush()
            return read(copy.name)
    path = Path(source)
    if path.is_dir():
        return [json.loads(p.read_text()) for p in sorted(path.glob("*.json"))]
    loaded = json.loads(path.read_text())
    return loaded if isinstance(loaded, list) else [loaded]


def evidence(instance: Instance) -> set[str]:
    return {f"{s}:{t}" for s, session in enumerate(instance["haystack_sessions"])
            for t, turn in enumerate(session) if turn.get("has_answer")}


def choose(instances: list[Instance], count: int, types: Sequence[str] | None) -> list[Instance]:
    """`count` questions in question-id order, the types in turn, none without evidence."""
    by_type: dict[str, list[Instance]] = defaultdict(list)
    for instance in sorted(instances, key=lambda i: str(i["question_id"])):
        if str(instance["question_id"]).endswith("_abs") or not evidence(instance):
            continue
        if types is None or instance["question_type"] in types:
            by_type[instance["question_type"]].append(instance)
    chosen: list[Instance] = []
    queues = [by_type[t] for t in sorted(by_type)]
    while len(chosen) < count and any(queues):
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop(0))
    return chosen


def parse_date(value: str) -> datetime:
    """LongMemEval's "2023/05/20 (Sat) 02:21"."""
    return datetime.strptime(value.split(" (")[0] + " " + value.rsplit(") ", 1)[-1], "%Y/%m/%d %H:%M"
                             ).replace(tzinfo=UTC)


def turns(instance: Instance) -> list[tuple[str, str, datetime]]:
    """(turn id, text, session date + a second per turn) of every turn of the haystack."""
    out = []
    for s, (session, date) in enumerate(zip(instance["haystack_sessions"], instance["haystack_dates"],
                                            strict=True)):
        start = parse_date(date)
        for t, turn in enumerate(session):
            out.append((f"{s}:{t}", f"{turn['role']}: {turn['content']}", start + timedelta(seconds=t)))
    return out


def project_of(instance: Instance, dating: str) -> str:
    return f"lme-{instance['question_id']}-{dating}"


def ingest(client: ApiClient, instance: Instance, dating: str, now: datetime
           ) -> tuple[str, dict[str, set[str]]]:
    """Store the haystack in a project of its own; (project, memory id -> the turns it stands for:
    a turn repeated word for word reinforces the memory of its first telling)."""
    project = project_of(instance, dating)
    shift = now - parse_date(instance["question_date"])
    behind: dict[str, set[str]] = defaultdict(set)
    rows = turns(instance)
    for start in range(0, len(rows), BATCH):
        chunk = rows[start:start + BATCH]
        answer = client.call("POST", "/api/memory/batch", {"memories": [
            {"project": project, "category": "conversation", "content": text,
             "created_at": (at + shift if dating == "dated" else now).isoformat(),
             "session_id": f"{instance['question_id']}-{ident.split(':')[0]}", "metadata": {"turn": ident}}
            for ident, text, at in chunk]})
        for (ident, _, _), memory_id in zip(chunk, answer["ids"], strict=True):
            behind[memory_id].add(ident)
    return project, behind


def stored(client: ApiClient, instance: Instance, dating: str, now: datetime
           ) -> tuple[str, dict[str, set[str]]]:
    """The project an earlier run stored the haystack in (`--reuse`), each result's turn then read
    from its metadata; a haystack no run stored yet is stored now."""
    project = project_of(instance, dating)
    if client.call("GET", "/api/memory/stats", project=project)["total"] == 0:
        return ingest(client, instance, dating, now)
    return project, {}


def recall(ranked: Sequence[set[str]], wanted: set[str]) -> float:
    """Labelled turns among the top 10 results over labelled turns."""
    return len(wanted & set().union(*ranked[:10])) / len(wanted)


def bm25(chosen: list[Instance], tokenise: Callable[[Sequence[str]], list[list[str]]]) -> dict[str, float]:
    out = {}
    for instance in chosen:
        rows = turns(instance)
        index = Bm25Index([ident for ident, _, _ in rows], tokenise([text for _, text, _ in rows]))
        (query,) = tokenise([instance["question"]])
        out[instance["question_id"]] = recall([{i} for i in index.rank(query, 20)], evidence(instance))
    return out


def report(chosen: list[Instance], results: dict[str, dict[str, float]]) -> list[str]:
    types = sorted({i["question_type"] for i in chosen})
    lines = ["| ranking | R@10 | " + " | ".join(types) + " |", "|---" * (len(types) + 2) + "|"]
    for label, scores in results.items():
        cells = [statistics.mean(scores[i["question_id"]] for i in chosen if i["question_type"] == t)
                 for t in types]
        lines.append(f"| {label} | **{statistics.mean(scores.values()):.3f}** | "
                     + " | ".join(f"{c:.3f}" for c in cells) + " |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True,
                        help="longmemeval_s*.json, a directory of instances, or a URL")
    parser.add_argument("--questions", type=int, default=24)
    parser.add_argument("--types", nargs="+", help="question types to take (default: all)")
    parser.add_argument("--home", type=Path, help="keep the server's home here")
    parser.add_argument("--reuse", action="store_true",
                        help="ask again on what an earlier run stored in --home (storing what it did not)")
    parser.add_argument("--minutes", type=float, default=0,
                        help="take no further question after this many minutes (figures: the questions done)")
    args = parser.parse_args()
    if args.reuse and args.home is None:
        parser.error("--reuse needs the --home of an earlier run")
    chosen = choose(read(args.data), args.questions, args.types)
    total = sum(len(turns(i)) for i in chosen)
    print(f"{len(chosen)} questions, {total} turns", flush=True)
    server = ItachiServer(args.home, env={"ITACHI_EMBEDDING_TIMEOUT_S": "120"}).start()
    results: dict[str, dict[str, float]] = {f"Itachi hybrid, {dating}": {} for dating in DATINGS}
    try:
        client, now, started = server.client(), datetime.now(UTC), time.perf_counter()
        for n, instance in enumerate(chosen):
            if args.minutes and time.perf_counter() - started > 60 * args.minutes:
                chosen = chosen[:n]  # the types in turn: what is done stays stratified
                break
            for dating in DATINGS:
                project, behind = (stored if args.reuse else ingest)(client, instance, dating, now)
                answer = client.search(instance["question"], project, 20, "hybrid", include_global=False)
                if answer["mode"] != "hybrid":
                    raise SystemExit(f"search degraded: {answer.get('degraded')}")
                ranked = [behind.get(r["id"]) or {str(r["metadata"]["turn"])} for r in answer["results"]]
                results[f"Itachi hybrid, {dating}"][instance["question_id"]] = recall(
                    ranked, evidence(instance))
            done = ", ".join(f"{d} {results[f'Itachi hybrid, {d}'][instance['question_id']]:.3f}"
                             for d in DATINGS)
            print(f"{n + 1}/{len(chosen)} {instance['question_type']}: {done} ({len(turns(instance))} turns,"
                  f" {time.perf_counter() - started:.0f} s in all)", flush=True)
        from infra.local.postgres import start_postgres

        handle, url = start_postgres(server.home)
        try:
            results["BM25 over english lexemes"] = bm25(chosen, lambda ts: english_lexemes(url, ts))
        finally:
            handle.cleanup()
    finally:
        server.stop()
    results["BM25 over words"] = bm25(chosen, lambda ts: [words(t) for t in ts])
    print("\n".join(["", *report(chosen, results)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
