"""Knowledge updates through the real API: does the current value rank above the outdated ones?

    .venv/bin/python -m bench.knowledge_updates [--projects 10] [--seed 11] [--keyed]

Generates the set (`bench/knowledge_update_data.py`: sixteen families of facts split by the seed
into a tuning half and a held-out half; twelve fresh ones and twelve unseen ones, each written by
someone who had not read the update rule, the unseen not read by its author when measured), starts its own
`itachi up` in a throwaway home (local MiniLM embedder) and stores every project's notes in write
order with `POST /api/memory/batch`, once with each note at its session's date (a minute apart
within it) and once all at one time (a bulk import). Each question is asked with `GET
/api/memory/search` (hybrid, limit 20). Reported per half and dating: how often the current
statement ranks above every outdated one (an outdated one missing from the top 20 is below; a
current one missing loses), how often the current statement is first, how often each outdated
statement names a later statement of its fact as `updated_by` (`GET /api/memory/{id}`), and the
wrong pointers: notes, traps (the same wording about another subject, a negated proposal) or
statements of another fact that carry `updated_by`, or point to a memory of another fact. BM25
over words ranks the same notes beside.

`--keyed` repeats the run with an OpenAI key set: no real key is used here, the key and base URL
point at the local fake OpenAI server (`tests/fakes/fake_openai.py`) and the embedder stays the
local one. The update rule and search call no language model, so the keyed figures can only show
that a key changes nothing on this path; the run prints how many requests reached the fake.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.bm25 import Bm25Index, words
from bench.knowledge_update_data import generate
from bench.memory_api import ApiClient, ItachiServer

DATINGS = ("dated", "once")


def ingest(client: ApiClient, proj: dict[str, Any], dating: str) -> dict[str, str]:
    """Store a project's notes in write order; note id -> memory id."""
    now = datetime.now(UTC)
    rows = []
    for session in proj["sessions"]:
        start = datetime.fromisoformat(session["date"])
        for i, note in enumerate(session["notes"]):
            at = start + timedelta(minutes=i) if dating == "dated" else now
            rows.append({"project": f"{proj['id']}-{dating}", "category": "fact", "content": note["text"],
                         "created_at": at.isoformat(), "metadata": {"note": note["id"]}})
    answer = client.call("POST", "/api/memory/batch", {"memories": rows})
    return {row["metadata"]["note"]: memory_id for row, memory_id in zip(rows, answer["ids"], strict=True)}


def above(ranked: list[str], current: str, outdated: list[str]) -> float:
    rank = {n: i for i, n in reversed(list(enumerate(ranked)))}
    return float(all(rank.get(current, 98) < rank.get(o, 99) for o in outdated))


def measure(client: ApiClient, projects: list[dict[str, Any]], dating: str) -> dict[str, float]:
    tops, firsts, pointers, wrong, pointed = [], [], [], 0, 0
    for proj in projects:
        stored = ingest(client, proj, dating)
        note_of = {m: n for n, m in stored.items()}
        fact_of = {n["id"]: n["fact"] for s in proj["sessions"] for n in s["notes"]}
        for q in proj["questions"]:
            answer = client.search(q["text"], f"{proj['id']}-{dating}", 20, "hybrid", include_global=False)
            if answer["mode"] != "hybrid":
                raise SystemExit(f"search degraded: {answer.get('degraded')}")
            ranked = [note_of[r["id"]] for r in answer["results"] if r["id"] in note_of]
            tops.append(above(ranked, q["current"], q["outdated"]))
            firsts.append(float(bool(ranked) and ranked[0] == q["current"]))
            for k, old in enumerate(q["outdated"]):
                successor = client.call("GET", f"/api/memory/{stored[old]}")["metadata"].get("updated_by")
                pointers.append(float(note_of.get(str(successor)) in q["chain"][k + 1:]))
        for note, memory_id in stored.items():
            successor = client.call("GET", f"/api/memory/{memory_id}")["metadata"].get("updated_by")
            if successor is None:
                continue
            pointed += 1
            later = note_of.get(str(successor), "")
            if not fact_of[note] or fact_of.get(later) != fact_of[note]:
                wrong += 1
    return {"current above outdated": statistics.mean(tops), "current first": statistics.mean(firsts),
            "outdated points to a successor": statistics.mean(pointers), "wrong pointers": float(wrong),
            "pointers": float(pointed)}


def bm25(projects: list[dict[str, Any]]) -> dict[str, float]:
    tops, firsts = [], []
    for proj in projects:
        notes = [n for s in proj["sessions"] for n in s["notes"]]
        index = Bm25Index([n["id"] for n in notes], [words(n["text"]) for n in notes])
        for q in proj["questions"]:
            ranked = index.rank(words(q["text"]), 20)
            tops.append(above(ranked, q["current"], q["outdated"]))
            firsts.append(float(bool(ranked) and ranked[0] == q["current"]))
    return {"current above outdated": statistics.mean(tops), "current first": statistics.mean(firsts)}


def run(data: dict[str, Any], env: dict[str, str], label: str) -> dict[str, dict[str, float]]:
    server = ItachiServer(env={"ITACHI_EMBEDDING_TIMEOUT_S": "120", **env}).start()
    results: dict[str, dict[str, float]] = {}
    try:
        client = server.client()
        for half, projects in data["halves"].items():
            for dating in DATINGS:
                results[f"{label}, {half}, {dating}"] = measure(client, projects, dating)
                print(f"{label} {half} {dating}: {results[f'{label}, {half}, {dating}']}", flush=True)
    finally:
        server.stop()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--projects", type=int, default=10, help="projects per half")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--keyed", action="store_true", help="also run with a key (the fake OpenAI server)")
    parser.add_argument("--halves", default="tuning,held-out,fresh,unseen")
    args = parser.parse_args()
    data = generate(args.projects, args.seed)
    data["halves"] = {h: p for h, p in data["halves"].items() if h in args.halves.split(",")}
    results = run(data, {"OPENAI_API_KEY": ""}, "no key")
    if args.keyed:
        from tests.fakes.fake_openai import FakeOpenAI

        with FakeOpenAI() as fake:
            results.update(run(data, {"OPENAI_API_KEY": "sk-bench-fake", "OPENAI_BASE_URL": fake.base_url,
                                      "ITACHI_EMBEDDING_PROVIDER": "local"}, "fake key"))
            print(f"requests that reached the fake OpenAI server: {len(fake.requests)}")
    for half, projects in data["halves"].items():
        results[f"BM25 over words, {half}"] = bm25(projects)
    questions = {h: sum(len(p["questions"]) for p in ps) for h, ps in data["halves"].items()}
    print(f"\nseed {data['seed']}, questions per half {questions}\n")
    print("| ranking | current above outdated | current first | outdated points to a successor "
          "| wrong pointers / pointers |\n|---|---|---|---|---|")
    for label, r in results.items():
        wrong = (f"{r['wrong pointers']:.0f} / {r['pointers']:.0f}" if "pointers" in r else "-")
        pointer = f"{r['outdated points to a successor']:.3f}" if "pointers" in r else "-"
        cells = f"{r['current above outdated']:.3f} | {r['current first']:.3f} | {pointer} | {wrong}"
        print(f"| {label} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
