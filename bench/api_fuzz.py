"""The long fuzz run: generated hostile requests to every route of a fresh `itachi up`.

`tests/integration/test_api_fuzz.py` runs a few examples per route in `make test`; this runs
`--examples` per route (default 200) and prints the answers by status, per route and in total.
Every 5xx other than a documented 503 `unavailable` is listed.

    .venv/bin/python -m bench.api_fuzz --examples 200
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlparse

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from chalicelib.contracts.api_transport import ApiClient
from tests.support.api_fuzz import ROUTES, FuzzClient, Seeds, request_for
from tests.support.orchestration import client_for
from tests.support.up_process import UpProcess


def seed(client: ApiClient) -> Seeds:
    memory = client.post("/api/memory", {"project": "fuzz", "content": "the fuzz seed memory"})
    task = client.post("/api/tasks", {"project": "fuzz", "description": "a seeded task"})
    client.post("/api/machines/heartbeat", {"machine_id": "fuzz-box", "agent_instance": "a1"})
    session = client.post("/api/sessions", {"prompt": "hello", "project": "fuzz"})
    return Seeds({"memory_id": [memory["id"]], "task_id": [task["id"], task["id"][:8]],
                  "session_id": [session["id"]], "lesson_id": [memory["id"]]})


def fuzz_route(fuzz: FuzzClient, route: tuple[str, str], seeds: Seeds, examples: int) -> None:
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        fuzz.send(*data.draw(request_for(route[0], route[1], seeds)))

    run()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=200)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="itachi-bench-fuzz-"))
    home = root / "home"
    up = UpProcess(home, extra_args=["--no-agent"])
    total: Counter[int] = Counter()
    errors: list[tuple[str, str, int, str]] = []
    started = time.monotonic()
    try:
        key = json.loads((home / "config.json").read_text())["api_key"]
        seeds = seed(client_for(up.url, key))
        url = urlparse(up.url)
        for route in sorted(ROUTES):
            fuzz = FuzzClient(url.hostname or "127.0.0.1", url.port or 80, {"Authorization": f"Bearer {key}"})
            fuzz_route(fuzz, route, seeds, args.examples)
            total.update(fuzz.statuses)
            errors += fuzz.server_errors
            print(f"{route[0]:6} {route[1]:45} {dict(sorted(fuzz.statuses.items()))}", flush=True)
    finally:
        up.stop()
        shutil.rmtree(root, ignore_errors=True)
    print(f"\n{sum(total.values())} requests to {len(ROUTES)} routes in {time.monotonic() - started:.0f} s")
    print(f"by status: {dict(sorted(total.items()))}")
    print(f"5xx other than a documented 503: {len(errors)}")
    for error in errors[:20]:
        print("  ", error)


if __name__ == "__main__":
    main()
