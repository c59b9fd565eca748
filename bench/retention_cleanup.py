"""The retention cleanup on a database of aged rows: how fast it deletes, and that it keeps the rest.

    .venv/bin/python bench/retention_cleanup.py [--rows 1000000] [--fresh 0.1] [--batch 5000]

Starts an embedded Postgres of its own, migrates it, COPY-loads `--rows` rows past their
retention spread over the kinds (35 % task events, 35 % session edits, 15 % transcript chunks,
15 % LLM usage rows) plus `--fresh` as many again inside it, and 10,000 other memories of every
age; then runs the cleanup's retention (the real adapter, batches of `--batch`, no time budget)
and prints the seconds, rows/s overall and by kind, and checks that only the old rows went.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SHARES = {"task_events": 0.35, "session_edits": 0.35, "transcript_chunks": 0.15, "llm_usage": 0.15}
DAYS = {"task_events": 90, "session_edits": 90, "transcript_chunks": 180, "llm_usage": 400}
OTHER_MEMORIES = 10_000


def _age(kind: str, n: int, old: bool) -> int:
    """Days old: spread past the kind's retention (old) or inside it."""
    return DAYS[kind] + 1 + n % 700 if old else n % DAYS[kind]


def load(conn: Any, kind: str, count: int, old: bool, start: int) -> None:
    if kind == "task_events":
        tasks = [str(uuid.uuid4()) for _ in range(max(1, count // 100))]
        with conn.cursor().copy("COPY tasks (id, project, description, time_budget_s) FROM STDIN") as copy:
            for task in tasks:
                copy.write_row((task, "bench", "d", 60))
        sql = "COPY task_events (task_id, seq, kind, text, created_at) FROM STDIN"
        rows: Any = ((tasks[n % len(tasks)], n, "log", "output line", f"now() - {_age(kind, n, old)}")
                     for n in range(start, start + count))
    elif kind == "session_edits":
        sql = "COPY session_edits (session_id, project, file, tool, lines_added, created_at) FROM STDIN"
        rows = ((f"s{n // 50}", "bench", f"src/f{n % 300}.py", "Edit", 3, f"now() - {_age(kind, n, old)}")
                for n in range(start, start + count))
    elif kind == "transcript_chunks":
        sql = "COPY memories (project, category, content, content_hash, created_at) FROM STDIN"
        rows = (("bench", "transcript", f"user: turn {n}\nassistant: answer {n}", f"t{n}",
                 f"now() - {_age(kind, n, old)}") for n in range(start, start + count))
    else:
        sql = "COPY llm_usage (day, purpose, model, status, prompt_tokens, created_at) FROM STDIN"
        rows = ((f"today - {_age(kind, n, old)}", "bench", "m", "ok", 100, f"now() - {_age(kind, n, old)}")
                for n in range(start, start + count))
    with conn.cursor().copy(sql) as copy:
        for row in rows:
            copy.write_row(tuple(_literal(v) for v in row))


def _literal(value: Any) -> Any:
    """COPY takes values, not expressions: turn 'now() - N' / 'today - N' into a timestamp / date."""
    if isinstance(value, str) and (value.startswith("now() - ") or value.startswith("today - ")):
        from datetime import UTC, datetime, timedelta

        moment = datetime.now(UTC) - timedelta(days=int(value.rsplit(" ", 1)[1]), minutes=5)
        return moment.date() if value.startswith("today") else moment
    return value


def counts(conn: Any) -> dict[str, int]:
    one = lambda sql: conn.execute(sql).fetchone()["n"]  # noqa: E731
    return {"task_events": one("SELECT count(*) AS n FROM task_events"),
            "session_edits": one("SELECT count(*) AS n FROM session_edits"),
            "transcript_chunks": one("SELECT count(*) AS n FROM memories WHERE category = 'transcript'"),
            "llm_usage": one("SELECT count(*) AS n FROM llm_usage"),
            "other_memories": one("SELECT count(*) AS n FROM memories WHERE category <> 'transcript'")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--fresh", type=float, default=0.1)
    parser.add_argument("--batch", type=int, default=5000)
    args = parser.parse_args()

    from chalicelib.kernel.database import Database, connect_once
    from chalicelib.kernel.migrations import apply_migrations
    from chalicelib.ops.adapters.retention_repository import PostgresRetentionRows
    from chalicelib.ops.domain.retention import RetentionPolicy
    from chalicelib.ops.services.housekeeping import apply_retention
    from infra.local.postgres import start_postgres

    root = Path(tempfile.mkdtemp(prefix="itachi-retention-bench-"))
    server, url = start_postgres(root)
    try:
        apply_migrations(url, embedding_dim=384, embedding_model="all-MiniLM-L6-v2")
        began = time.perf_counter()
        with connect_once(url) as conn:
            for kind, share in SHARES.items():
                old = int(args.rows * share)
                load(conn, kind, old, True, 0)
                load(conn, kind, int(old * args.fresh), False, old)
            with conn.cursor().copy("COPY memories (project, category, content, content_hash, created_at)"
                                    " FROM STDIN") as copy:
                for n in range(OTHER_MEMORIES):
                    aged = _literal(f"now() - {n % 2000}")
                    copy.write_row(("bench", "lesson", f"lesson {n}", f"l{n}", aged))
            conn.commit()
            conn.execute("VACUUM ANALYZE")
            before = counts(conn)
        print(f"loaded {sum(before.values()):,} rows in {time.perf_counter() - began:.1f} s: {before}")

        db = Database(url, min_size=1, max_size=1)
        started = time.perf_counter()
        run = apply_retention(PostgresRetentionRows(db), RetentionPolicy(DAYS, batch_rows=args.batch,
                                                                          time_budget_s=86400))
        seconds = time.perf_counter() - started
        db.close()
        with connect_once(url) as conn:
            after = counts(conn)
        removed = sum(run.removed.values())
        print(f"removed {removed:,} rows in {seconds:.1f} s: {removed / seconds:,.0f} rows/s "
              f"(batches of {args.batch}); by kind {run.removed}")
        expected_left = {k: before[k] - int(args.rows * SHARES[k]) for k in SHARES}
        assert {k: after[k] for k in SHARES} == expected_left, (after, expected_left)
        assert after["other_memories"] == OTHER_MEMORIES
        print(f"left: {after} (every fresh row and every other memory kept)")
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
