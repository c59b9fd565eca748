"""Scheduled every minute: the health checks; Telegram hears of an outage once, and of its end."""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import get_container


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return get_container().health_monitor.run().to_json()
