"""Scheduled (every 5 minutes): memories stored without a vector get one.

A write stores its memory even when the embedder misses the write deadline (a cold model, a slow
or failing embedding API); such a memory is found by full-text search only until this run embeds
it. Bounded by batches and by time, so a large backlog drains over several runs.
"""

from __future__ import annotations

import time
from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger

BATCH = 100
TIME_BUDGET_S = 200.0  # of the schedule's 300 s


def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    memory = get_container().memory
    deadline = time.monotonic() + TIME_BUDGET_S
    embedded = batches = 0
    while time.monotonic() < deadline:
        done = memory.embed_pending(BATCH)
        embedded += done
        batches += 1
        if done < BATCH:
            break
    counts = {"embedded": embedded, "batches": batches}
    get_logger().info("pending embeddings done", extra=counts)
    return counts
