"""Scheduled (weekly): lessons applied 5+ times are boosted or decayed by their success rate."""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger


def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    counts = get_container().learning_review.review_effectiveness()
    get_logger().info("effectiveness review done", extra=counts)
    return counts
