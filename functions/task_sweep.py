"""Scheduled every minute: recover tasks whose agent vanished and offer waiting tasks again."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from chalicelib.bootstrap import get_container


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return asdict(get_container().task_sweeper.sweep())
