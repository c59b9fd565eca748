"""Housekeeping run by the daily cleanup schedule."""

from __future__ import annotations

from chalicelib.ops.services.ports import IdempotencyRecords

IDEMPOTENCY_RETENTION_DAYS = 30


def forget_old_idempotency_records(records: IdempotencyRecords,
                                   days: int = IDEMPOTENCY_RETENTION_DAYS) -> int:
    """Drop idempotency keys past retention (SQS redelivery windows are far shorter)."""
    return records.purge_older_than(days)
