"""A brain cycle's time and its LLM tokens, on the embedded Postgres with moto's SQS.

Seeds `--tasks` finished tasks, `--groups` tasks failing three times alike and `--machines`
quiet machines (SQL inserts), then times: the first cycle (observe, one orient call to
FakeOpenAI, decide, store 3 proposals), the cycle right after it (3 observations covered; the
fake's unscripted answer is unusable, so the heuristic ranks), and the heuristic cycle (the
brain's LLM budget at 0). Tokens are read back from `llm_usage` (the fake bills as OpenAI
counts: prompt and completion tokens).

    python bench/brain_cycle.py --tasks 20000 --groups 50 --machines 5 --runs 5
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chalicelib.kernel.database import connect_once
from tests.fakes.fake_openai import FakeOpenAI


def seed(url: str, tasks: int, groups: int, machines: int) -> None:
    with connect_once(url) as conn:
        conn.execute(
            "INSERT INTO tasks (id, project, description, status, time_budget_s, created_at, finished_at)"
            " SELECT gen_random_uuid(), 'p' || (i %% 20), 'routine task ' || i, 'completed', 1800,"
            " now() - (i || ' seconds')::interval, now() FROM generate_series(1, %s) i", (tasks,))
        for g in range(groups):
            for _ in range(3):
                tid = str(uuid.uuid4())
                conn.execute("INSERT INTO tasks (id, project, description, status, time_budget_s, error)"
                             " VALUES (%s, %s, %s, 'failed', 1800, 'ImportError: auth')",
                             (tid, f"p{g % 20}", f"fix flaky test {g}"))
                conn.execute("INSERT INTO task_events (task_id, seq, attempt, kind)"
                             " VALUES (%s, 1, 1, 'failed')", (tid,))
        for m in range(machines):
            conn.execute("INSERT INTO machines (id, status, last_heartbeat_at) VALUES (%s, 'online',"
                         " now() - interval '10 minutes')", (f"quiet-{m}",))


def timed(fn: object, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(time.perf_counter() - started)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=20000)
    parser.add_argument("--groups", type=int, default=50)
    parser.add_argument("--machines", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    from infra.local.moto_server import start_moto
    from infra.local.postgres import start_postgres
    from tests.support.local_stack import make_container, settings_for_test

    root = Path(tempfile.mkdtemp(prefix="itachi-brain-bench-"))
    server, url = start_postgres(root)
    moto, endpoint = start_moto()
    try:
        from chalicelib.kernel.migrations import apply_migrations

        apply_migrations(url, embedding_dim=384, embedding_model="all-MiniLM-L6-v2")
        seed(url, args.tasks, args.groups, args.machines)
        with FakeOpenAI() as fake:
            c = make_container(settings_for_test(root / "home", url, endpoint).replace(
                openai_api_key="sk-bench", openai_base_url=fake.base_url))
            ranked = [{"index": i, "title": f"t{i}", "rationale": "r", "priority": 1} for i in range(20)]
            firsts, covered, heuristic = [], [], []
            for _ in range(args.runs):
                with connect_once(url) as conn:
                    conn.execute("DELETE FROM brain_proposals")
                fake.script_chat(json.dumps({"ranked": ranked}))
                report = c.brain_loop.cycle()
                firsts.append(report.seconds)
                assert report.ranking == "llm" and len(report.proposals) == 3, report
                covered += timed(c.brain_loop.cycle, 1)
            c.brain_decisions.configure("budget", "0")
            for _ in range(args.runs):
                with connect_once(url) as conn:
                    conn.execute("DELETE FROM brain_proposals")
                report = c.brain_loop.cycle()
                assert report.ranking == "heuristic", report
                heuristic.append(report.seconds)
            with connect_once(url) as conn:
                usage = conn.execute(
                    "SELECT count(*) AS calls, avg(prompt_tokens) AS p, avg(completion_tokens) AS c"
                    " FROM llm_usage WHERE purpose = 'brain' AND status = 'ok'").fetchone()
            assert usage is not None
            c.close()
    finally:
        moto.terminate()
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)
    observations = args.groups + args.machines
    print(f"machine: {platform.machine()}, Python {platform.python_version()}; seeded {args.tasks} tasks, "
          f"{args.groups} failing groups, {args.machines} quiet machines ({observations} observations)")
    for name, values in (("first cycle (LLM orient, 3 proposals)", firsts),
                         ("second cycle right after (3 covered, unscripted LLM answer -> heuristic)",
                          covered),
                         ("heuristic cycle (3 proposals)", heuristic)):
        print(f"{name}: median {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms "
              f"over {len(values)} runs")
    print(f"orient call: {usage['calls']} calls, {float(usage['p']):.0f} prompt + {float(usage['c']):.0f} "
          f"completion tokens each (20 observations carried)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
