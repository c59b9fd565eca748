"""A process that replays a hook outbox, as concurrent hooks do: for race tests.

`python -m tests.support.outbox_replayer HOME API_URL STALE_S replay` waits for HOME/go, then
replays until every entry is delivered (or 60 s pass). `... claim` claims one entry, prints
its claimed name and then waits to be killed, as a hook killed mid-send leaves its claim.
"""

from __future__ import annotations

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
    while not (home / "go").exists():  # every replayer starts at the same moment
        time.sleep(0.002)
    deadline = Deadline(60)
    client = ApiClient(HookContext("race", HookConfig(home, url, "test-key"), deadline, {}, []), outbox)
    while _left(outbox) and deadline.remaining() > 5:
        if not client.replay(10):
            time.sleep(0.02)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
