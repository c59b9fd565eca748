"""Scheduled (weekly) and queued (SessionEnd over budget): one bounded memory eviction run.

The weekly run's key is the ISO week, so EventBridge's at-least-once delivery (or a retry after
a timeout) resumes the same run instead of advancing memories twice.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from chalicelib.bootstrap import get_container


def weekly_run_key(now: datetime) -> str:
    year, week, _ = now.isocalendar()
    return f"weekly:{year}-W{week:02d}"


def handler(event: dict[str, Any], context: Any) -> dict[str, object]:
    container = get_container()
    report = container.memory_eviction.run(weekly_run_key(datetime.now(UTC)),
                                           time_budget_s=container.settings.memory_eviction_time_s)
    return report.as_json()


def run_queued(body: dict[str, Any]) -> dict[str, object]:
    """The `evict_memories` message a SessionEnd over budget queues (bounded to a minute)."""
    project, run_key = body.get("project"), body.get("run_key")
    if not isinstance(project, str) or not isinstance(run_key, str) or not project or not run_key:
        raise ValueError("evict_memories needs a project and a run_key")
    return get_container().memory_eviction.run(run_key, project=project, time_budget_s=60.0).as_json()
