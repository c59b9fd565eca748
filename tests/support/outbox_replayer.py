"""A process that replays a hook outbox, as concurrent hooks do: for race tests.

`python -m tests.support.outbox_replayer HOME API_URL STALE_S replay` says it is ready (a file
in HOME/ready), waits for HOME/go (the start barrier: the test creates it once every replayer is
ready), then replays until every entry is delivered (or 60 s pass) and writes when it started,
when it ended and how many entries it delivered to HOME/ran/PID.json. `... claim` claims one
entry, prints its claimed name and then waits to be killed, as a hook killed mid-send leaves
its claim.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from hooks.api_client import ApiClient
from hooks.outbox import CLAIM_SUFFIX, Outbox
from hooks.runtime import Deadline, HookConfig, HookContext


def _left(outbox: Outbox) -> bool:
    return any(p.name.endswith((".json", CLAIM_SUFFIX)) and not p.name.startswith(".")
               for p in outbox.root.iterdir())


def main(argv: list[str]) -> int:
    home, url, stale, mode = Path(argv[1]), argv[2], float(argv[3]), argv[4]
    outbox = Outbox(home / "outbox", stale_claim_s=stale)
    if mode == "claim":
        claimed = outbox.claim(outbox.pending(1)[0])
        print(claimed.name if claimed else "", flush=True)
        time.sleep(3600)
        return 0
    deadline = Deadline(60)
    client = ApiClient(HookContext("race", HookConfig(home, url, "test-key"), deadline, {}, []), outbox)
    (home / "ready").mkdir(exist_ok=True)
    (home / "ready" / str(os.getpid())).touch()
    while not (home / "go").exists():  # every replayer starts at the same moment
        time.sleep(0.002)
    started, delivered = time.time(), 0
    while _left(outbox) and deadline.remaining() > 5:
        sent = client.replay(10)
        delivered += sent
        if not sent:
            time.sleep(0.02)
    (home / "ran").mkdir(exist_ok=True)
    record = {"started": started, "ended": time.time(), "delivered": delivered}
    (home / "ran" / f"{os.getpid()}.json").write_text(json.dumps(record), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
