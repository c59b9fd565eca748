"""Schemathesis against a fresh `itachi up`, from its own /openapi.json, with the key.

The test suite runs 5 examples per operation; this runs as many as asked (default 100) and
prints operations covered, examples tried, status codes seen and every failure.

    python -m bench.openapi_fuzz --examples 100
"""

from __future__ import annotations

import argparse
import sys

from bench.memory_api import ItachiServer
from tests.support.schema_fuzz import fuzz  # the suite's runner, shared


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=100, help="generated requests per operation")
    parser.add_argument("--seed", type=int, default=0, help="0: deterministic generation")
    parser.add_argument("--no-nul", action="store_true", help="keep NUL characters out of strings")
    args = parser.parse_args()
    server = ItachiServer().start()
    try:
        server.client().call("POST", "/api/machines/heartbeat", {"machine_id": "fuzz-box",
                                                                 "agent_instance": "fuzz"})
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
