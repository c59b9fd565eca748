"""Housekeeping run by the daily cleanup schedule: idempotency records, then retention."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from chalicelib.kernel.logging import get_logger
from chalicelib.ops.domain.retention import KINDS, RetentionPolicy, RetentionRun
from chalicelib.ops.services.ports import IdempotencyRecords, RetentionRows

IDEMPOTENCY_RETENTION_DAYS = 30


def forget_old_idempotency_records(records: IdempotencyRecords,
                                   days: int = IDEMPOTENCY_RETENTION_DAYS) -> int:
    """Drop idempotency keys past retention (SQS redelivery windows are far shorter)."""
    return records.purge_older_than(days)


def apply_retention(rows: RetentionRows, policy: RetentionPolicy,
                    clock: Callable[[], float] = time.monotonic) -> RetentionRun:
    """Delete rows past their kind's retention, one committed batch at a time, round-robin over
    the kinds until none has old rows left or the time budget is spent (the next run goes on)."""
    started = datetime.now(UTC)
    deadline = clock() + policy.time_budget_s
    removed = {kind: 0 for kind, _ in policy.applied}
    pending = dict(policy.applied)
    while pending and clock() < deadline:
        for kind, days in list(pending.items()):
            count = rows.delete_batch(kind, days, policy.batch_rows)
            removed[kind] += count
            if count < policy.batch_rows:
                del pending[kind]
            if clock() >= deadline:
                break
    run = RetentionRun(started, removed, complete=not pending, finished_at=datetime.now(UTC))
    rows.record_run(run)
    get_logger().info("retention applied", extra={"removed": removed, "complete": run.complete})
    return run


def retention_status(rows: RetentionRows, policy: RetentionPolicy) -> dict[str, object]:
    """The retention settings and what the last cleanup removed, for `itachi status`."""
    last = rows.last_run()
    return {"days": {kind: policy.days.get(kind, 0) for kind in KINDS},
            "last_run": last.to_json() if last else None}
