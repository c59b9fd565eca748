"""Scheduled: daily cleanup (idempotency records, then rows past their retention)."""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.idempotency import IdempotencyRepository
from chalicelib.kernel.logging import get_logger
from chalicelib.ops.services.housekeeping import apply_retention, forget_old_idempotency_records


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    container = get_container()
    removed = forget_old_idempotency_records(IdempotencyRepository(container.db))
    get_logger().info("cleanup done", extra={"idempotency_records_removed": removed})
    run = apply_retention(container.retention_rows, container.retention_policy)
    return {"idempotency_records_removed": removed, "retention": run.to_json()}
