"""The code-intelligence workers at 1,000 sessions / 50,000 edits: run time and LLM tokens each.

    .venv/bin/python bench/codeintel_workers.py [--sessions 1000] [--edits 50000] [--projects 20]

An embedded Postgres (the tests' `TestPostgres`) gets `--sessions` ended sessions over
`--projects` projects (each with a 6-turn transcript), `--edits` edits with short Python diffs
spread over them (3% failed), and 8 project rules per project, half of them shared by two or more
projects. Memories are embedded by the real local model (all-MiniLM-L6-v2, warmed up first).
Then, twice over fresh copies of that database:

- **rules** (no OpenAI key): each worker's first run (what one scheduled run does, bounded) and
  its second run. A worker that drained in one run must find nothing new the second time (the
  bench asserts it); the synthesizer (50 sessions a run) and the transcript indexer (20) have a
  backlog at 1,000 sessions, so their second run is one more bounded batch;
- **llm** (the real openai SDK against the fake OpenAI server, purposes in `llm_usage`): the same,
  with each worker's LLM calls and tokens (prompt tokens are Itachi's real prompts; completion
  tokens are the fake's fixed answer, so they say nothing about a real model's length).

Prints one table per mode. GitHub sync is timed against the fake GitHub with `--repos` repos.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

WORKERS = (
    "session_synthesizer",
    "edit_analyzer",
    "repo_expertise",
    "style_extractor",
    "cross_project",
    "transcript_indexer",
    "github_sync",
)
FILES = (
    "api/routes.py",
    "api/schemas.py",
    "core/models.py",
    "core/services.py",
    "core/billing.py",
    "db/queries.py",
    "db/migrations.py",
    "workers/queue.py",
    "workers/retry.py",
    "utils/time.py",
    "tests/test_routes.py",
    "tests/test_services.py",
    "tests/test_billing.py",
    "README.md",
)
DIFF = (
    "@@ -1,2 +1,6 @@\n+import httpx\n+from pydantic import BaseModel\n+\n"
    '+def load_{n}(item_id: str) -> dict:\n+    response_body = httpx.get(f"/items/{{item_id}}").json()\n'
    '+    return {{"id": response_body["id"]}}\n'
)
RULES = (
    "Always run database migrations before running the tests",
    "Never log access tokens or secrets",
    "Keep pull requests under 400 changed lines",
    "Use UTC timestamps everywhere in the database",
)
FAKE_ANSWER = json.dumps(
    {
        "goal": "Ship the change",
        "changed": "core/services.py",
        "decisions": ["Use httpx"],
        "open_ends": [],
        "style": "Python, snake_case, 4-space indents",
        "rule": "Run migrations first",
        "is_task": False,
        "project": "",
        "prompt": "",
    }
)


def seed(url: str, sessions: int, edits: int, projects: int) -> None:
    from chalicelib.kernel.database import Database

    rng = random.Random(16)
    db = Database(url, min_size=1, max_size=2)
    with db.connection() as conn:
        with conn.cursor().copy(
            "COPY sessions (session_id, project, ended_at, files_changed, transcript, summary) FROM STDIN"
        ) as copy:
            for s in range(sessions):
                turns = [
                    {
                        "role": "user",
                        "text": f"Please fix the retry handling in workers/retry.py for job {s}",
                        "line": 1,
                    }
                ]
                turns += [
                    {
                        "role": "assistant" if i % 2 else "user",
                        "line": i + 2,
                        "text": f"Step {i}: we decided to switch to exponential backoff for job {s}. " * 8,
                    }
                    for i in range(5)
                ]
                copy.write_row(
                    (
                        f"s{s:05d}",
                        f"proj-{s % projects:02d}",
                        "2026-11-20T10:00:00Z",
                        "{" + ",".join(rng.sample(FILES, 3)) + "}",
                        json.dumps(turns),
                        None,
                    )
                )
        with conn.cursor().copy(
            "COPY session_edits (session_id, project, file, tool, lines_added, lines_removed,"
            " language, diff, failed) FROM STDIN"
        ) as copy:
            for e in range(edits):
                s = rng.randrange(sessions)
                copy.write_row(
                    (
                        f"s{s:05d}",
                        f"proj-{s % projects:02d}",
                        rng.choice(FILES),
                        "Edit",
                        rng.randint(1, 40),
                        rng.randint(0, 20),
                        "python",
                        DIFF.format(n=e),
                        rng.random() < 0.03,
                    )
                )
        conn.execute("ANALYZE")
    db.close()


def seed_rules(container: Any, projects: int) -> None:
    from chalicelib.memory.domain.memory_model import MemoryDraft

    drafts = []
    for p in range(projects):
        for i, rule in enumerate(RULES):
            drafts.append(
                MemoryDraft(
                    project=f"proj-{p:02d}",
                    category="project_rule",
                    confidence=0.8,
                    content=rule if (p + i) % 2 == 0 else f"{rule} in proj-{p:02d} only, item {i}",
                )
            )
            drafts.append(
                MemoryDraft(
                    project=f"proj-{p:02d}",
                    category="task_lesson",
                    confidence=0.7,
                    content=f"Lesson {i} of proj-{p:02d}: check the {FILES[i]} module first",
                )
            )
    container.memory.remember_many(drafts, near_dedup=False)


def usage(container: Any) -> dict[str, tuple[int, int, int]]:
    with container.db.connection() as conn:
        rows = conn.execute(
            "SELECT purpose, count(*) AS calls, sum(prompt_tokens) AS p,"
            " sum(completion_tokens) AS c FROM llm_usage GROUP BY purpose"
        ).fetchall()
    return {r["purpose"]: (int(r["calls"]), int(r["p"] or 0), int(r["c"] or 0)) for r in rows}


BACKLOG = ("session_synthesizer", "transcript_indexer")  # 50 and 20 sessions a run: 1,000 need many runs
PURPOSE = {
    "session_synthesizer": "session_synthesis",
    "repo_expertise": "repo_expertise",
    "style_extractor": "style_extraction",
    "cross_project": "cross_project",
}


def run_mode(url: str, home: Path, openai_url: str | None, github_url: str) -> None:
    from chalicelib.memory.adapters.embedders import warm_up_embedder
    from tests.fakes.fake_github import TOKEN
    from tests.support.local_stack import make_container, settings_for_test

    extra: dict[str, Any] = {
        "github_token": TOKEN,
        "github_api_url": github_url,
        "embedding_provider": "local",
        "llm_daily_budget_usd": 1000.0,
    }
    if openai_url:
        extra.update(openai_api_key="sk-bench", openai_base_url=openai_url)
    container = make_container(settings_for_test(home, url, None).replace(**extra), with_queues=False)
    warm_up_embedder(container.embedder)
    print(f"\n## {'llm (fake OpenAI)' if openai_url else 'rules (no key)'}\n")
    print(
        "| worker | first run s | first run did | second run s | second run did | LLM calls | prompt tok |"
        " completion tok |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in WORKERS:
        worker = getattr(container.codeintel, name)
        before = usage(container).get(PURPOSE.get(name, ""), (0, 0, 0))
        t0 = time.perf_counter()
        first = worker.run()
        t1 = time.perf_counter()
        second = worker.run()
        t2 = time.perf_counter()
        if name not in BACKLOG:  # drained in one run: the next one has nothing new and changes nothing
            assert not _did_work(second), (name, second)
        after = usage(container).get(PURPOSE.get(name, ""), (0, 0, 0))
        calls, prompt, completion = (a - b for a, b in zip(after, before, strict=True))
        print(
            f"| {name} | {t1 - t0:.2f} | {_items(first)} | {t2 - t1:.2f} | {_items(second)} | {calls} "
            f"| {prompt:,} | {completion:,} |",
            flush=True,
        )
    container.close()


def _did_work(counts: dict[str, Any]) -> bool:
    keys = ("synthesized", "changed", "proposed", "sessions", "added", "updated")
    return any(int(counts.get(k) or 0) for k in keys) and not counts.get("skipped")


def _items(counts: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items() if k not in ("by_llm",))


def clone(pg: Any, template_url: str) -> str:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    name = f"bench_{time.time_ns() % 10**12}"
    source = conninfo_to_dict(template_url)["dbname"]
    with psycopg.connect(pg.admin_url, autocommit=True) as conn:
        # Pooled connections the seeding left idle would block the copy.
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s"
                     " AND pid <> pg_backend_pid()", (source,))
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {source}")
    return pg.url_for(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=50_000)
    parser.add_argument("--projects", type=int, default=20)
    parser.add_argument("--repos", type=int, default=500)
    parser.add_argument(
        "--max-runs",
        type=int,
        default=3,
        help="runs per worker at most (the backlog drains over the schedule's later runs)",
    )
    args = parser.parse_args()
    from tests.fakes.fake_github import FakeGitHub, github_repo
    from tests.fakes.fake_openai import FakeOpenAI
    from tests.support.local_stack import TestPostgres, make_container, settings_for_test

    root = Path(tempfile.mkdtemp(prefix="itachi-bench-codeintel-"))
    pg = TestPostgres(root / "pg")
    try:
        url = pg.new_database()
        t0 = time.perf_counter()
        seed(url, args.sessions, args.edits, args.projects)
        seeding = make_container(settings_for_test(root / "seed", url, None), with_queues=False)
        seed_rules(seeding, args.projects)
        seeding.close()
        print(
            f"seeded {args.sessions} sessions, {args.edits} edits, {args.projects} projects "
            f"in {time.perf_counter() - t0:.1f} s"
        )
        copies = [clone(pg, url), clone(pg, url)]
        repos = [github_repo("acme", f"service-{i:04d}") for i in range(args.repos)]
        with (
            FakeGitHub(repos) as github,
            FakeOpenAI(default_chat_content=FAKE_ANSWER) as fake,
        ):
            run_mode(copies[0], root / "rules", None, github.api_url)
            run_mode(copies[1], root / "llm", fake.base_url, github.api_url)
    finally:
        pg.close()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
