"""The web console's page loads at 100k memories: server time and full load in headless Chromium.

    .venv/bin/python bench/console_load.py [--total 100000] [--large 40000] [--runs 30]

Starts `itachi up` in a throwaway home, bulk-loads the memories of bench/scale.py (same corpus,
same cached embeddings, HNSW built after the load), signs in to the console, then for each page:

- **server**: the HTTP round trip of the page's HTML on loopback (the request through the app's
  guard, the session lookup, the queries, the rendering), `--runs` times after one warm-up;
- **browser**: Debian's Chromium driven by Playwright (a fresh profile, no network) navigating to
  the page with the session cookie: Navigation Timing's `responseEnd` (HTML received) and
  `loadEventEnd` (HTML parsed, htmx, Chart.js and the console's script loaded and run, the charts
  drawn), `--browser-runs` times after one warm-up.

Searches use a new query text every time (no cached query embedding).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
import urllib.parse
from typing import Any

import requests
from memory_api import ROOT, ItachiServer, percentile
from scale import QUESTIONS, corpus, load, text

sys.path.insert(0, str(ROOT))

from tests.support.chromium import CHROMIUM, FLAGS


def sign_in(url: str, key: str) -> requests.Session:
    http = requests.Session()
    form = http.get(url + "/console/login", timeout=30).text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form)
    assert csrf, form
    answer = http.post(
        url + "/console/login", data={"csrf": csrf.group(1), "key": key}, allow_redirects=False, timeout=30
    )
    assert answer.status_code == 303, answer.text
    return http


def pages(http: requests.Session, url: str) -> dict[str, Any]:
    """Page name -> a function giving the next path to load (searches vary their text)."""
    listing = http.get(url + "/console/memories", params={"project": "acme/large"}, timeout=60).text
    memory_id = re.search(r'/console/memories/([0-9a-f-]{36})"', listing)
    assert memory_id, listing[:2000]
    rng = random.Random(7)
    counter = iter(range(10**9))

    def search() -> str:
        query = f"{text(rng, rng.choice(QUESTIONS), next(counter))}"
        return "/console/memories?" + urllib.parse.urlencode({"q": query, "project": "acme/large"})

    return {
        "memories (newest, all projects)": lambda: "/console/memories",
        "memories (one project of 40k)": lambda: "/console/memories?project=acme%2Flarge",
        "memories (hybrid search, 40k)": search,
        "memories (search, all 600 projects)": lambda: (
            "/console/memories?"
            + urllib.parse.urlencode({"q": f"{text(rng, rng.choice(QUESTIONS), next(counter))}"})
        ),
        "one memory (near duplicates)": lambda: f"/console/memories/{memory_id.group(1)}",
        "rules & lessons": lambda: "/console/learning",
        "sessions": lambda: "/console/sessions",
        "tasks": lambda: "/console/tasks",
        "spend (30 days)": lambda: "/console/spend",
    }


def server_times(http: requests.Session, url: str, next_path: Any, runs: int) -> list[float]:
    http.get(url + next_path(), timeout=120)  # warm-up
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        answer = http.get(url + next_path(), timeout=120)
        times.append((time.perf_counter() - started) * 1000)
        assert answer.status_code == 200, answer.text[:500]
    return times


def browser_times(
    url: str, cookie: str, named: dict[str, Any], runs: int
) -> dict[str, tuple[list[float], ...]]:
    from playwright.sync_api import sync_playwright

    out: dict[str, tuple[list[float], ...]] = {}
    host = urllib.parse.urlsplit(url).hostname
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=FLAGS
        )
        context.add_cookies([{"name": "itachi_console", "value": cookie, "domain": host, "path": "/console"}])
        page = context.new_page()
        for name, next_path in named.items():
            page.goto(url + next_path(), wait_until="load")  # warm-up (and the assets' HTTP cache)
            html_ms, load_ms = [], []
            for _ in range(runs):
                page.goto(url + next_path(), wait_until="load")
                timing = page.evaluate(
                    "() => { const n = performance.getEntriesByType('navigation')[0];"
                    " return [n.responseEnd - n.startTime, n.loadEventEnd - n.startTime]; }"
                )
                html_ms.append(float(timing[0]))
                load_ms.append(float(timing[1]))
            out[name] = (html_ms, load_ms)
        context.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--total", type=int, default=100_000)
    parser.add_argument("--large", type=int, default=40_000)
    parser.add_argument("--projects", type=int, default=600)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--browser-runs", type=int, default=10)
    args = parser.parse_args()
    rows = corpus(args.total, args.large, args.projects)
    server = ItachiServer(env={"ITACHI_EMBEDDING_THREADS": "1"}).start()
    try:
        seconds = load(server, rows)
        print(f"bulk-loaded {len(rows)} memories ({args.large} in acme/large) in {seconds:.0f} s")
        http = sign_in(server.url, server.key)
        named = pages(http, server.url)
        for name, next_path in named.items():
            t = server_times(http, server.url, next_path, args.runs)
            print(
                f"server  {name}: p50 {percentile(t, 50):.1f} ms, p95 {percentile(t, 95):.1f} ms, "
                f"max {max(t):.1f} ms ({len(t)} loads)"
            )
        cookie = http.cookies.get("itachi_console") or ""
        for name, (html_ms, load_ms) in browser_times(server.url, cookie, named, args.browser_runs).items():
            print(
                f"browser {name}: HTML p50 {percentile(html_ms, 50):.0f} ms; full load p50 "
                f"{percentile(load_ms, 50):.0f} ms, p95 {percentile(load_ms, 95):.0f} ms"
                f" ({len(load_ms)} loads)"
            )
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
