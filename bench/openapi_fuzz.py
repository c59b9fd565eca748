"""Schemathesis against a fresh `itachi up`, from its own /openapi.json, with the key.

The test suite runs 5 examples per operation; this runs as many as asked (default 100) and
prints operations covered, examples tried, status codes seen and every failure.

    python -m bench.openapi_fuzz --examples 100

`--all-checks SECONDS` runs the Schemathesis CLI instead, with every check (`--checks all`:
also negative data, unsupported methods and their `Allow`, missing headers, ignored auth,
stateful links) and every phase, for at most that long; it counts the statuses of all the
requests it sent (from its HAR report), those that got no answer, and prints its summary.

    python -m bench.openapi_fuzz --all-checks 240 --examples 50
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bench.memory_api import ItachiServer
from tests.support.schema_fuzz import fuzz  # the suite's runner, shared


def all_checks(url: str, key: str, *, max_examples: int, max_time_s: int, seed: int) -> tuple[str, int]:
    """Run `schemathesis run --checks all`; its summary and exit code, and the statuses it saw."""
    with tempfile.TemporaryDirectory(prefix="itachi-schemathesis-") as scratch:
        har = Path(scratch) / "requests.har"
        command = [str(Path(sys.executable).parent / "schemathesis"), "run", url + "/openapi.json",
                   "--checks", "all", "--header", f"Authorization: Bearer {key}",
                   "--max-examples", str(max_examples), "--max-time", str(max_time_s),
                   "--seed", str(seed), "--request-timeout", "30", "--workers", "2",
                   "--report", "har", "--report-har-path", str(har), "--no-color",
                   "--generation-database", "none"]
        # Run from the scratch directory: Schemathesis keeps its crash cache in ./.schemathesis
        run = subprocess.run(command, capture_output=True, text=True, check=False, cwd=scratch)
        entries = json.loads(har.read_text())["log"]["entries"] if har.exists() else []
    statuses = Counter(int((entry.get("response") or {}).get("status") or 0) for entry in entries)
    answered = {code: n for code, n in sorted(statuses.items()) if code}
    lines = [f"requests: {len(entries)}; no answer: {statuses.get(0, 0)}; 500: {statuses.get(500, 0)}; "
             "statuses " + ", ".join(f"{code}: {n}" for code, n in answered.items()),
             "---- schemathesis", run.stdout, run.stderr[-2000:]]
    return "\n".join(lines), run.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=100, help="generated requests per operation")
    parser.add_argument("--seed", type=int, default=0, help="0: deterministic generation")
    parser.add_argument("--no-nul", action="store_true", help="keep NUL characters out of strings")
    parser.add_argument("--all-checks", type=int, metavar="SECONDS", default=0,
                        help="run the Schemathesis CLI with every check for at most SECONDS")
    args = parser.parse_args()
    server = ItachiServer().start()
    try:
        server.client().call("POST", "/api/machines/heartbeat", {"machine_id": "fuzz-box",
                                                                 "agent_instance": "fuzz"})
        if args.all_checks:
            summary, code = all_checks(server.url, server.key, max_examples=args.examples,
                                       max_time_s=args.all_checks, seed=args.seed)
            print(summary)
            return code
        report = fuzz(server.url, server.key, max_examples=args.examples, seed=args.seed,
                      allow_nul=not args.no_nul)
    finally:
        server.stop()
    print(report.summary())
    for failure in report.failures:
        print("----\n" + failure)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
