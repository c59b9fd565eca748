"""Scheduled: daily cleanup."""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.idempotency import IdempotencyRepository
from chalicelib.kernel.logging import get_logger
from chalicelib.ops.services.housekeeping import forget_old_idempotency_records


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    removed = forget_old_idempotency_records(IdempotencyRepository(get_container().db))
    get_logger().info("cleanup done", extra={"idempotency_records_removed": removed})
    return {"idempotency_records_removed": removed}
