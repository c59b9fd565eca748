"""Ask two servers holding copies of one database the same searches: do they rank alike?

For comparing two checkouts' search code on the same memories (the ranking must not move in a
change that is not about ranking): each query in hybrid, text and vector mode (limit 20), and
the prompt hook's own request (project, namespaces and `_global` limits, the graph's block);
ids, scores and the whole hook answer must agree. Prints each difference and a count.

    python bench/seed_memories.py --home A --project P -n 10000   # then stop it, copy A to B
    OLD/.venv/bin/itachi up --home A --port 8791 --no-agent &
    NEW/.venv/bin/itachi up --home B --port 8792 --no-agent &
    python bench/search_parity.py http://127.0.0.1:8791 http://127.0.0.1:8792 --home A --project P
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.hooks_overhead import PROMPTS
from bench.memory_api import ApiClient
from bench.seed_memories import MODULES, TOOLS
from chalicelib.contracts.prompt_context import GLOBAL_LIMIT, NAMESPACE_LIMIT, PROJECT_LIMIT

MODES = ("hybrid", "text", "vector")
# The prompt hook's request (hooks/user_prompt_submit.py) for a session with nothing injected yet.
HOOK = {"project_limit": PROJECT_LIMIT, "global_limit": GLOBAL_LIMIT, "namespace_limit": NAMESPACE_LIMIT,
        "mode": "hybrid", "graph": "true"}


def ranked(answer: dict[str, Any]) -> list[tuple[str, float]]:
    return [(str(r["id"]), round(float(r.get("score") or 0), 6)) for r in answer.get("results") or []]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--home", type=Path, required=True,
                        help="either home: the API key from its config.json")
    parser.add_argument("--project", required=True)
    args = parser.parse_args()
    key = json.loads((args.home / "config.json").read_text())["api_key"]
    old, new = ApiClient(args.old, key), ApiClient(args.new, key)
    queries = PROMPTS + [f"why did we pick {tool} for the {module} service"
                         for module, tool in zip(MODULES, itertools.cycle(TOOLS), strict=False)]
    asked = differ = 0
    for query in queries:
        for mode in MODES:
            a, b = (c.call("GET", "/api/memory/search", query=query, project=args.project, limit=20,
                           mode=mode) for c in (old, new))
            asked += 1
            if ranked(a) != ranked(b) or a.get("degraded") != b.get("degraded"):
                differ += 1
                print(f"{mode} {query!r}: {ranked(a)[:5]} against {ranked(b)[:5]}")
        a, b = (c.call("GET", "/api/memory/search", query=query, project=args.project, **HOOK)
                for c in (old, new))
        asked += 1
        if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
            differ += 1
            print(f"prompt hook {query!r}: {json.dumps(a)[:300]} against {json.dumps(b)[:300]}")
    print(f"{asked} searches, {differ} answered differently")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
