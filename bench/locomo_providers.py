"""LoCoMo recall through the API with each local embedder runtime, on the same stored memories.

    .venv/bin/python -m bench.locomo_providers --home H [--providers onnx torch] [--env K=V ...]

Reuses the home a `bench/locomo.py` (or `bench/locomo_variants.py`) run left (its memories and
their vectors), restarts `itachi up` on it once per provider (`ITACHI_EMBEDDING_PROVIDER`, the
shipped search settings plus any `--env`), and asks every category 1-4 question through
`GET /api/memory/search` (hybrid, limit 20, the conversation's project only), so the query
vectors come from that runtime. Prints turn R@10 over all ten conversations, 1-5 and 6-10, MRR,
categories 1 and 2, and the search latency of each.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import run_mode
from bench.locomo_data import load
from bench.locomo_variants import behind_from, table
from bench.memory_api import ROOT, ItachiServer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "benchdata")
    parser.add_argument("--providers", nargs="+", default=["onnx", "torch"])
    parser.add_argument("--env", nargs="*", default=[], help="extra server settings, K=V")
    args = parser.parse_args()
    chosen = list(enumerate(load(args.data), start=1))
    extra = dict(kv.split("=", 1) for kv in args.env)
    from infra.local.postgres import start_postgres

    handle, url = start_postgres(args.home)
    try:
        behind = behind_from(url, chosen)
    finally:
        handle.cleanup()
    results = {}
    for provider in args.providers:
        env = {"ITACHI_EMBEDDING_PROVIDER": provider, "ITACHI_EMBEDDING_TIMEOUT_S": "120", **extra}
        server = ItachiServer(home=args.home, env=env).start()
        try:
            result = run_mode(server.client(), chosen, behind, "hybrid")
        finally:
            server.stop(keep_home=True)
        name = f"{provider} (hybrid through the API{', ' + ', '.join(args.env) if args.env else ''})"
        results[name] = result
        print(f"{name}: search p50 {result['latency_p50']:.1f} ms, p95 {result['latency_p95']:.1f} ms",
              flush=True)
        print("\n".join(table({name: result})[-1:]), flush=True)
    print("\n".join(table(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
