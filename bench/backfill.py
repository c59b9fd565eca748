"""`itachi backfill` of a generated corpus of Claude Code sessions through the real API.

    .venv/bin/python bench/backfill.py [--sessions 1000]

Starts `itachi up` in a throwaway home (no LLM key: the heuristic extractor), writes
`--sessions` small synthetic transcripts (`write_corpus`: a few turns each, with the decisions,
preferences and rules the extractor picks up, over 20 working directories) in Claude Code's
layout, runs `itachi backfill --from claude` on them twice and prints each run's seconds,
sessions/s and summary. The second run must add nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.memory_api import ROOT, ItachiServer

TOPICS = ("cache", "queue", "billing", "uploads", "search", "auth", "exports", "metrics", "retries",
          "webhooks")
TOOLS = ("Postgres", "Redis", "SQS", "pytest", "ruff", "uv", "Docker", "Terraform", "htmx", "pydantic")


def write_corpus(root: Path, sessions: int, *, projects: int = 20, seed: int = 7) -> list[Path]:
    """`sessions` Claude Code transcripts under `root` (one folder per working directory)."""
    rng, start = random.Random(seed), datetime(2026, 1, 1, tzinfo=UTC)
    written = []
    for i in range(sessions):
        cwd = f"/work/bench-backfill/project-{i % projects}"
        session_id = f"00000000-0000-4000-8000-{i:012d}"
        topic, tool, other = rng.choice(TOPICS), rng.choice(TOOLS), rng.choice(TOOLS)
        at = start + timedelta(minutes=37 * i)
        turns = [
            ("user", f"The {topic} code in session {i} keeps failing, can you look at it?"),
            ("assistant", f"Turns out the root cause was a missing index on the {topic} table (case {i})."),
            ("user", f"We decided to use {tool} for {topic} from release {i % 40}. Always run the {topic} "
                     f"checks before merging."),
            ("assistant", f"Fixed the {topic} bug in handler_{i}; I prefer {tool} over {other} here."),
        ]
        path = root / re.sub(r"[^A-Za-z0-9]", "-", cwd) / f"{session_id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            for n, (role, text) in enumerate(turns):
                message: dict[str, object] = {"role": role, "content": text}
                if role == "assistant":
                    message = {"id": f"msg_{i}_{n}", "role": role,
                               "content": [{"type": "text", "text": text}]}
                record = {"type": role, "sessionId": session_id, "cwd": cwd, "uuid": f"{i}-{n}",
                          "timestamp": (at + timedelta(seconds=20 * n)).isoformat().replace("+00:00", "Z"),
                          "message": message}
                out.write(json.dumps(record) + "\n")
        written.append(path)
    return written


def backfill(server: ItachiServer, corpus: Path) -> tuple[float, str]:
    env = {**os.environ, "ITACHI_API_URL": server.url, "ITACHI_API_KEY": server.key,
           "ITACHI_HOME": str(server.home), "PYTHONPATH": str(ROOT), "CLAUDE_CONFIG_DIR": str(corpus.parent)}
    env.pop("ITACHI_PROJECT", None)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "agent.cli", "backfill", "--from", "claude", str(corpus)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"backfill failed: {done.stdout}\n{done.stderr[-2000:]}")
    return elapsed, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="itachi-backfill-") as tmp:
        corpus = Path(tmp) / "projects"
        write_corpus(corpus, args.sessions)
        server = ItachiServer(env={"OPENAI_API_KEY": ""}).start()
        try:
            for run in ("first", "again"):
                elapsed, summary = backfill(server, corpus)
                rate = args.sessions / elapsed
                print(f"{run}: {args.sessions} sessions in {elapsed:.1f} s ({rate:.1f} sessions/s)\n  "
                      + summary.strip().replace("\n", "\n  "))
            if "memories added: 0, rules added: 0" not in summary:
                raise SystemExit("the second run added something")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
