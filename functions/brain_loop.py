"""Scheduled every minute: expire old proposals, and run a brain cycle when its interval is up."""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import get_container


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return get_container().brain_loop.tick().to_json()
