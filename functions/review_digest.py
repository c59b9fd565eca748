"""Scheduled every hour: send the memories waiting for review to the chat, with their buttons."""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    container = get_container()
    chat_id = container.settings.telegram_chat_id
    if not container.telegram_enabled or not chat_id:
        return {"announced": 0}
    from chalicelib.telegram.services.review_digest import send_review_digest

    announced = send_review_digest(container.memory_review, container.telegram_gateway, chat_id)
    if announced:
        get_logger().info("review digest sent", extra={"announced": announced})
    return {"announced": announced}
