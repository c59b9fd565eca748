"""Scheduled: the subagent lifecycle worker (every 30 s locally, every minute on EventBridge) and
the agents' cron scheduler (every minute)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    report = asdict(get_container().agent_lifecycle.sweep())
    if any(report.values()):
        get_logger().info("subagent lifecycle", extra={k: len(v) for k, v in report.items()})
    return report


def cron(event: dict[str, Any], context: Any) -> dict[str, Any]:
    runs = get_container().agent_cron.fire_due()
    if runs:
        get_logger().info("agent cron fired", extra={"runs": len(runs)})
    return {"fired": [run.id for run in runs]}
