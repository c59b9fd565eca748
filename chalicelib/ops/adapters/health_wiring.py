"""The health monitor as the deployment runs it: which checks, where its state and alerts go."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chalicelib.kernel.queue_table import QUEUES
from chalicelib.ops.adapters import health_probes as probes
from chalicelib.ops.adapters.health_outputs import CloudWatchMetrics, TelegramAlerts
from chalicelib.ops.adapters.health_state_file import HealthStateFile
from chalicelib.ops.adapters.health_state_repository import (
    DatabaseFirstHealthState,
    PostgresHealthState,
    PostgresRestartLog,
)
from chalicelib.ops.services.health_monitor import Alerts, HealthMonitor, Metrics, NoAlerts
from chalicelib.ops.services.self_healing import RequestRestart, SelfHealing

if TYPE_CHECKING:
    from chalicelib.kernel.database import Database
    from chalicelib.kernel.notifier import Notifier
    from chalicelib.kernel.queues import SqsQueues
    from chalicelib.kernel.settings import Settings
    from chalicelib.llm.services.ports import LlmUnits


def build_health_monitor(settings: Settings, db: Database, queues: Callable[[], SqsQueues],
                         machines: Callable[[], list[dict[str, Any]]], llm_units: LlmUnits,
                         gateway: Callable[[], Notifier], chat_id: int | None, *,
                         unclaimed: Callable[[], dict[str, tuple[str, float]]],
                         request_restart: RequestRestart) -> HealthMonitor:
    s = settings
    in_lambda = bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))
    keys = tuple(spec.key for spec in QUEUES)

    def llm_today() -> dict[str, Any] | None:
        from chalicelib.llm.domain.llm_budget import DailyBudget
        from chalicelib.llm.services.usage_report import usage_report

        if not s.llm_enabled:
            return None
        budget = DailyBudget(usd=s.llm_daily_budget_usd, tokens=s.llm_daily_budget_tokens)
        return usage_report(llm_units, budget, model=s.llm_model, enabled=True, days=1)["today"]  # type: ignore[no-any-return]

    checks: list[probes.HealthProbe] = [
        probes.DatabaseCheck(db.ping), probes.QueueCheck(queues, keys), probes.DlqCheck(queues, keys),
        probes.MachinesCheck(machines), probes.AgentsCheck(machines, unclaimed),
        probes.LlmBudgetCheck(llm_today)]
    if s.public_url:
        checks.insert(0, probes.ApiCheck(s.public_url))
    alerts: Alerts = TelegramAlerts(gateway, chat_id) if chat_id is not None else NoAlerts()
    metrics: Metrics | None = None
    if in_lambda:
        metrics = CloudWatchMetrics(_cloudwatch(s.aws_region), s.stage)
    state = Path("/tmp/itachi-health.json") if in_lambda else s.home / "run" / "health.json"  # noqa: S108
    store = DatabaseFirstHealthState(PostgresHealthState(db), HealthStateFile(state))
    healer = SelfHealing(PostgresRestartLog(db), request_restart, s.health_max_restarts_per_hour)
    return HealthMonitor(checks, store, alerts, metrics, healer=healer)


def _cloudwatch(region: str) -> Callable[[], Any]:
    from chalicelib.kernel.lazy import Lazy

    def build() -> Any:
        import boto3

        return boto3.client("cloudwatch", region_name=region)

    return Lazy(build).get
