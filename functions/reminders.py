"""Scheduled every minute: send the reminders that are due."""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    telegram = get_container().telegram
    if not telegram.enabled:
        return {"sent": 0}
    sent = telegram.reminders.fire_due()
    if sent:
        get_logger().info("reminders sent", extra={"sent": sent})
    return {"sent": sent}
