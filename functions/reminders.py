"""Scheduled every minute: send the reminders that are due."""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    container = get_container()
    if not container.telegram_enabled:
        return {"sent": 0}
    sent = container.reminders.fire_due()
    if sent:
        get_logger().info("reminders sent", extra={"sent": sent})
    return {"sent": sent}
