"""Where health alerts and figures go: a Telegram message, and CloudWatch metrics in AWS."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from chalicelib.ops.domain.health_rules import CRITICAL, WARNING, CheckResult

if TYPE_CHECKING:
    from chalicelib.kernel.notifier import Notifier

NAMESPACE = "Itachi/Health"


class TelegramAlerts:
    def __init__(self, gateway: Callable[[], Notifier], chat_id: int) -> None:
        self._gateway, self._chat_id = gateway, chat_id

    def send(self, text: str) -> None:
        self._gateway().send(self._chat_id, text)


class CloudWatchMetrics:
    """One `CheckLevel` datum per check (0 ok, 1 warning, 2 critical), by stage and check: the
    template's health alarm fires on 2 for three periods, as the Telegram alert does."""

    def __init__(self, client: Callable[[], Any], stage: str) -> None:
        self._client, self._stage = client, stage

    def publish(self, results: Sequence[CheckResult]) -> None:
        value = {CRITICAL: 2.0, WARNING: 1.0}
        data = [{"MetricName": "CheckLevel", "Value": value.get(r.level, 0.0), "Unit": "None",
                 "Dimensions": [{"Name": "Stage", "Value": self._stage}, {"Name": "Check", "Value": r.name}]}
                for r in results]
        for start in range(0, len(data), 20):
            self._client().put_metric_data(Namespace=NAMESPACE, MetricData=data[start:start + 20])
