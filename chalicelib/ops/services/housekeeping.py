"""Housekeeping run by the daily cleanup schedule."""

from __future__ import annotations

from chalicelib.kernel.idempotency import IdempotencyRepository

IDEMPOTENCY_RETENTION_DAYS = 30


def forget_old_idempotency_records(repo: IdempotencyRepository,
                                   days: int = IDEMPOTENCY_RETENTION_DAYS) -> int:
    """Drop idempotency keys past retention (SQS redelivery windows are far shorter)."""
    return repo.purge_older_than(days)
