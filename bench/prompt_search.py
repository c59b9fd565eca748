"""Time the UserPromptSubmit hook's memory search from one warm client: one request with per-scope
limits (what the hook sends) against the two parallel requests it used to send.

Every query is new to the server (a numbered suffix), so each one is embedded: the figures
include the query embedding, as a real prompt's do. The two ways alternate, query by query.

    python bench/prompt_search.py --api-url http://127.0.0.1:8787 --api-key KEY \\
        --project github.com/acme/repo -n 60
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

PROMPTS = [
    "which database did we decide to use for the notes service and why",
    "how do the hooks spool requests when the API is down",
    "what is the convention for naming modules in this repository",
    "what did we change in the session briefing endpoint last week",
]


def get(api_url: str, api_key: str, query: dict[str, Any]) -> int:
    url = f"{api_url.rstrip('/')}/api/memory/search?{urllib.parse.urlencode(query)}"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {api_key}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return len(json.loads(response.read())["results"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--api-url", required=True)
    parser.add_argument("--api-key", default="")
    parser.add_argument("--project", required=True)
    parser.add_argument("-n", type=int, default=60, help="queries per way")
    args = parser.parse_args()
    base = {"project": args.project, "mode": "hybrid"}
    one = {**base, "project_limit": 3, "global_limit": 2}
    two = [{**base, "limit": 3, "include_global": "false"}, {**base, "project": "_global", "limit": 2}]
    one_way, two_ways = "one request (project_limit=3, global_limit=2)", "two parallel requests (before)"
    timings: dict[str, list[float]] = {one_way: [], two_ways: []}
    stamp = int(time.time())
    with ThreadPoolExecutor(max_workers=2) as pool:
        for i in range(args.n):
            prompt = f"{PROMPTS[i % len(PROMPTS)]} (run {stamp}-{i})"
            started = time.perf_counter()
            found = get(args.api_url, args.api_key, {**one, "query": prompt + " a"})
            timings[one_way].append(time.perf_counter() - started)
            queries = [{**q, "query": prompt + " b"} for q in two]
            started = time.perf_counter()
            both = list(pool.map(lambda q: get(args.api_url, args.api_key, q), queries))
            timings[two_ways].append(time.perf_counter() - started)
            if found != sum(both):
                print(f"query {i}: {found} results in one request, {sum(both)} in two", file=sys.stderr)
    print(f"Prompt search against {args.api_url} (project {args.project}), ms, one warm client\n")
    print("| way | queries | p50 | p95 | max |\n|---|---|---|---|---|")
    for way, values in timings.items():
        ordered = sorted(v * 1000 for v in values)
        p95 = ordered[max(0, round(len(ordered) * 0.95) - 1)]
        median = statistics.median(ordered)
        print(f"| {way} | {len(ordered)} | {median:.1f} | {p95:.1f} | {ordered[-1]:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
