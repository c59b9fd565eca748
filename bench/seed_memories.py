"""Fill one project with N realistic, varied memories through the real POST /api/memory/batch.

It also teaches the project a few rules (POST /api/project/rules), so SessionStart has the
briefing, rules and recent memories a long-lived project has.

Used to measure the hooks at scale (``docs/benchmarks.md``, "Claude Code hooks"):

    itachi up --home /tmp/bench-home --port 8787 --no-agent &
    python bench/seed_memories.py --home /tmp/bench-home --project github.com/acme/notes -n 10000
    KEY=$(python -c 'import json; print(json.load(open("/tmp/bench-home/config.json"))["api_key"])')
    python bench/hooks_overhead.py --api-url http://127.0.0.1:8787 --api-key "$KEY" \\
        --project github.com/acme/notes -n 100

The texts are generated deterministically (``--seed``) from templates over a vocabulary of
modules, files, tools and reasons, the way a team's code changes, decisions, bug fixes and
learnings read. Every text carries its own names and numbers, so dedup keeps them apart.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

BATCH = 500
MODULES = ["billing", "auth", "search", "notifications", "ingest", "scheduler", "exporter", "profiles",
           "payments", "audit", "webhooks", "reports", "sync", "uploads", "sessions", "settings",
           "invoices", "onboarding", "analytics", "permissions"]
PARTS = ["service", "repository", "handler", "client", "models", "views", "tasks", "cache", "schema",
         "routes", "validators", "serializers", "worker", "adapter", "config"]
LANGS = {"py": "python", "ts": "typescript", "go": "go", "sql": "sql", "md": "markdown"}
TOOLS = ["Postgres", "Redis", "SQS", "pgvector", "Celery", "FastAPI", "React", "Terraform", "nginx",
         "Kafka", "S3", "OpenSearch", "gRPC", "GraphQL", "Docker", "pytest", "ruff", "mypy", "Alembic"]
VERBS = ["Added", "Refactored", "Fixed", "Renamed", "Split", "Inlined", "Removed", "Optimised",
         "Documented", "Tested", "Extracted", "Simplified", "Hardened", "Parallelised"]
THINGS = ["the retry loop", "pagination", "the cursor handling", "input validation", "the error path",
          "the rate limiter", "timezone conversion", "the batch size", "connection pooling",
          "the feature flag", "logging of request ids", "the idempotency check", "the CSV export",
          "the signature check", "the cache key", "the migration", "the backoff", "the health check"]
REASONS = ["it kept timing out under load", "the old code swallowed errors", "p95 latency was too high",
           "two workers raced on the same row", "customers saw duplicate emails",
           "the query planner picked a sequential scan", "memory grew without bound",
           "tests were flaky on CI", "the API contract changed", "it leaked a token into logs",
           "daylight saving time broke the schedule", "the payload exceeded the size limit"]
HABITS = ["small PRs", "squash merges", "type hints everywhere", "table-driven tests", "explicit imports"]
PEOPLE = ["Aiko", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Jonas",
          "Keiko", "Lars", "Mira", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tara"]
CATEGORIES = [("code_change", 35), ("decision", 10), ("pattern", 10), ("bugfix", 15),
              ("learning", 10), ("architecture", 5), ("preference", 5), ("note", 10)]


def file_for(rng: random.Random) -> str:
    ext = rng.choice(list(LANGS))
    return f"src/{rng.choice(MODULES)}/{rng.choice(PARTS)}.{ext}"


def text_for(category: str, rng: random.Random, index: int) -> tuple[str, list[str]]:
    """One memory's content and the files it mentions."""
    module, tool, tool2 = rng.choice(MODULES), rng.choice(TOOLS), rng.choice(TOOLS)
    thing, reason, who = rng.choice(THINGS), rng.choice(REASONS), rng.choice(PEOPLE)
    file = file_for(rng)
    added, removed = rng.randint(1, 240), rng.randint(0, 120)
    ticket = f"{module.upper()[:4]}-{1000 + index}"
    if category == "code_change":
        verb = rng.choice(VERBS)
        return (f"Edited {file} (+{added}/-{removed} lines): {verb} {thing} in the {module} "
                f"{rng.choice(PARTS)} because {reason} ({ticket}).", [file])
    if category == "decision":
        return (f"We decided to use {tool} for {thing} in {module}, not {tool2}, after {who} "
                f"measured {rng.randint(2, 40)}x fewer failures in {ticket}.", [])
    if category == "pattern":
        return (f"The convention in {module} is that every {rng.choice(PARTS)} goes through the "
                f"{rng.choice(PARTS)} layer; {who} applied it to {file} in {ticket}.", [file])
    if category == "bugfix":
        return (f"Fixed {thing} in {file}: {reason}. The fix caps it at {rng.randint(2, 500)} "
                f"and adds a regression test ({ticket}).", [file])
    if category == "learning":
        return (f"Turns out {tool} {rng.choice(['drops', 'reorders', 'retries', 'buffers'])} "
                f"messages when {thing} is misconfigured; {who} lost {rng.randint(1, 9)} hours on "
                f"it in {ticket}.", [])
    if category == "architecture":
        return (f"The {module} module talks to {tool} only through {file}; {tool2} sits behind "
                f"a port so tests use a fake ({ticket}, reviewed by {who}).", [file])
    if category == "preference":
        return (f"{who} prefers {rng.choice(HABITS)} "
                f"in {module}; keep reviews under {rng.randint(100, 600)} lines ({ticket}).", [])
    return (f"Note from {who}: {module} depends on {tool} {rng.randint(1, 17)}.{rng.randint(0, 20)} "
            f"and {thing} must be revisited before release {rng.randint(1, 30)} ({ticket}).", [])


def memories(project: str, count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    names = [c for c, _ in CATEGORIES]
    weights = [w for _, w in CATEGORIES]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    out = []
    for index in range(count):
        category = rng.choices(names, weights)[0]
        content, files = text_for(category, rng, index)
        created = start + timedelta(minutes=rng.randint(0, 320 * 24 * 60))
        out.append({"project": project, "category": category, "content": content, "files": files,
                    "metadata": {"source": "bench/seed_memories.py", "n": index},
                    "created_at": created.isoformat()})
    return out


def rules(count: int, seed: int) -> list[str]:
    """Distinct project rules of the kind users teach ("always ...", "never ...")."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        module, tool, other = rng.choice(MODULES), rng.choice(TOOLS), rng.choice(TOOLS)
        rule = rng.choice([f"Always run {tool} checks before merging changes to {module}",
                           f"Never call {tool} directly from {module}; go through its adapter",
                           f"Use {tool} for {rng.choice(THINGS)} in {module}, not {other}"])
        if rule not in out and tool != other:
            out.append(rule)
    return out


def post(api_url: str, api_key: str, path: str, body: dict[str, Any], timeout: float) -> Any:
    request = urllib.request.Request(
        api_url.rstrip("/") + path, data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--home", type=Path, help="an `itachi up` home: api_url and api_key from config.json")
    parser.add_argument("--api-url")
    parser.add_argument("--api-key")
    parser.add_argument("--project", required=True)
    parser.add_argument("-n", type=int, default=10_000, help="memories to create")
    parser.add_argument("--rules", type=int, default=15, help="project rules to teach")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    config = json.loads((args.home / "config.json").read_text()) if args.home else {}
    api_url = args.api_url or config.get("api_url")
    api_key = args.api_key or config.get("api_key", "")
    if not api_url:
        parser.error("give --api-url or --home")
    items = memories(args.project, args.n, args.seed)
    stored = 0
    started = time.perf_counter()
    for offset in range(0, len(items), BATCH):
        answer = post(api_url, api_key, "/api/memory/batch", {"memories": items[offset:offset + BATCH]},
                      timeout=600)
        stored += len(answer.get("ids", []))
        print(f"{offset + BATCH:>6} sent, {stored} ids, {time.perf_counter() - started:.0f} s", flush=True)
    for rule in rules(args.rules, args.seed):
        post(api_url, api_key, "/api/project/rules", {"project": args.project, "rule": rule}, timeout=60)
    print(f"seeded {stored} memories and {args.rules} rules into {args.project} "
          f"in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
