"""Recall on generated coding conversations through the real API, with and without dates, BM25 beside.

    .venv/bin/python -m bench.coding_recall [--conversations 8] [--seed 7] [--data F.json]

Generates the set (`bench/coding_conversations.py`, or reads `--data`), starts its own `itachi
up` in a throwaway home (local MiniLM embedder), and stores every conversation twice with
`POST /api/memory/batch` (message text "<role>: <text>", the message id in metadata, each session
its own `session_id` as a client's hooks send theirs): once with
each message at its session's date (a second apart within it), once with every message at one
time (a bulk import). Each question is asked with `GET /api/memory/search` (hybrid, limit 20) in
both projects. Reported, per dating: message recall@10; for updated facts, how often the update
ranks above the message it updated (an update missing from the top 20 is below); for
contradicted facts, how often both statements are in the top 10. BM25 over plain words and
over Postgres's english lexemes is computed here on the same messages. Every figure is held
out: nothing was chosen on this set.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.bm25 import Bm25Index, english_lexemes, words
from bench.coding_conversations import generate
from bench.memory_api import ApiClient, ItachiServer

BATCH = 40
DATINGS = ("dated", "once")


def ingest(client: ApiClient, data: dict[str, Any], dating: str) -> dict[str, str]:
    """Store every message of every conversation; memory id -> message id."""
    behind: dict[str, str] = {}
    now = datetime.now(UTC)
    for conv in data["conversations"]:
        rows: list[dict[str, Any]] = []
        for n, session in enumerate(conv["sessions"]):
            start = datetime.fromisoformat(session["date"])
            for i, m in enumerate(session["messages"]):
                at = start + timedelta(seconds=i) if dating == "dated" else now
                rows.append({"project": f"{conv['id']}-{dating}", "category": "conversation",
                             "content": f"{m['role']}: {m['text']}", "created_at": at.isoformat(),
                             "session_id": f"{conv['id']}-{n}", "metadata": {"message": m["id"]}})
        for start_at in range(0, len(rows), BATCH):
            chunk = rows[start_at:start_at + BATCH]
            answer = client.call("POST", "/api/memory/batch", {"memories": chunk})
            for row, memory_id in zip(chunk, answer["ids"], strict=True):
                behind.setdefault(memory_id, row["metadata"]["message"])
    return behind


def score(data: dict[str, Any], ranked: dict[str, list[str]]) -> dict[str, float]:
    """R@10 over every question; update above outdated; both sides of a contradiction in the top 10."""
    recall, above, both = [], [], []
    for conv in data["conversations"]:
        for q in conv["questions"]:
            got = ranked[q["qid"]]
            wanted = set(q["evidence"])
            recall.append(len(wanted & set(got[:10])) / len(wanted))
            if q["kind"] == "updated":
                rank = {m: i for i, m in reversed(list(enumerate(got)))}
                above.append(float(rank.get(q["evidence"][0], 99) < rank.get(q["outdated"][0], 99)))
            if q["kind"] == "contradicted":
                both.append(float(wanted <= set(got[:10])))
    return {"R@10": statistics.mean(recall), "update above outdated": statistics.mean(above),
            "both sides in top 10": statistics.mean(both)}


def bm25(data: dict[str, Any], tokenise: Any) -> dict[str, list[str]]:
    ranked: dict[str, list[str]] = {}
    for conv in data["conversations"]:
        messages = [m for s in conv["sessions"] for m in s["messages"]]
        index = Bm25Index([m["id"] for m in messages],
                          tokenise([f"{m['role']}: {m['text']}" for m in messages]))
        questions = conv["questions"]
        for q, tokens in zip(questions, tokenise([q["text"] for q in questions]), strict=True):
            ranked[q["qid"]] = index.rank(tokens, 20)
    return ranked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data", type=Path, help="a set written by bench/coding_conversations.py")
    parser.add_argument("--home", type=Path, help="keep the server's home here")
    args = parser.parse_args()
    data = json.loads(args.data.read_text()) if args.data else generate(args.conversations, 8, args.seed)
    server = ItachiServer(args.home, env={"ITACHI_EMBEDDING_TIMEOUT_S": "120"}).start()
    results: dict[str, dict[str, float]] = {}
    try:
        client = server.client()
        for dating in DATINGS:
            started = time.perf_counter()
            behind = ingest(client, data, dating)
            seconds = time.perf_counter() - started
            print(f"{dating}: stored {len(behind)} memories in {seconds:.0f} s", flush=True)
            ranked: dict[str, list[str]] = defaultdict(list)
            for conv in data["conversations"]:
                for q in conv["questions"]:
                    answer = client.search(q["text"], f"{conv['id']}-{dating}", 20, "hybrid",
                                           include_global=False)
                    if answer["mode"] != "hybrid":
                        raise SystemExit(f"search degraded: {answer.get('degraded')}")
                    ranked[q["qid"]] = [behind[r["id"]] for r in answer["results"] if r["id"] in behind]
            results[f"Itachi hybrid, {dating}"] = score(data, ranked)
        from infra.local.postgres import start_postgres

        handle, url = start_postgres(server.home)
        try:
            lexemes = bm25(data, lambda ts: english_lexemes(url, ts))
            results["BM25 over english lexemes"] = score(data, lexemes)
        finally:
            handle.cleanup()
    finally:
        server.stop()
    results["BM25 over words"] = score(data, bm25(data, lambda ts: [words(t) for t in ts]))
    questions = sum(len(c["questions"]) for c in data["conversations"])
    print(f"\n{len(data['conversations'])} conversations, {questions} questions (seed {data.get('seed')})\n")
    print("| ranking | R@10 | update above outdated | both sides in top 10 |\n|---|---|---|---|")
    for label, r in results.items():
        cells = (r["R@10"], r["update above outdated"], r["both sides in top 10"])
        print(f"| {label} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
