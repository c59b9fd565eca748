"""Scheduled (weekly): a strategy document per project from its recent lessons (LLM, budgeted)."""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    result = get_container().learning_review.reflect()
    get_logger().info("reflection done", extra={"week": result["week"],
                                                "documents": len(result["documents"])})
    return result
