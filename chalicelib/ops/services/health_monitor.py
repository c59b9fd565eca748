"""The health monitor (every minute): run each check, alert Telegram once per outage, restart an
agent that keeps failing (`self_healing`), feed metrics.

Its memory of consecutive failures lives in Postgres, so a cold start keeps it, with a local
file standing in while the database is what is down; each alert or recovery goes out without
touching the database.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from chalicelib.kernel.logging import get_logger, log_failure
from chalicelib.ops.domain.health_rules import (
    CRITICAL,
    CheckResult,
    CheckState,
    evaluate,
    overall,
    restarts_due,
)


class HealthProbe(Protocol):
    name: str

    def check(self) -> CheckResult | list[CheckResult]:
        """One result, or one per thing the probe watches (each agent)."""
        ...


class Healer(Protocol):
    def heal(self, due: Sequence[tuple[str, CheckState]]) -> list[str]: ...


class HealthStateStore(Protocol):
    def load(self) -> tuple[dict[str, CheckState], float | None]:
        """The checks' states and when the monitor last ran (epoch seconds), or ({}, None)."""
        ...

    def save(self, states: dict[str, CheckState], ran_at: float) -> None: ...


class Alerts(Protocol):
    def send(self, text: str) -> None: ...


class Metrics(Protocol):
    def publish(self, results: Sequence[CheckResult]) -> None: ...


class NoAlerts:
    def send(self, text: str) -> None:
        get_logger().warning("health alert (no Telegram configured)", extra={"alert": text})


class NoMetrics:
    def publish(self, results: Sequence[CheckResult]) -> None:
        return None


@dataclass(frozen=True)
class HealthReport:
    status: str
    checks: list[CheckResult]
    alerts: list[str]
    recoveries: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "checks": [r.__dict__ for r in self.checks],
                "alerts": self.alerts, "recoveries": self.recoveries}


class HealthMonitor:
    def __init__(self, probes: Sequence[HealthProbe], store: HealthStateStore, alerts: Alerts,
                 metrics: Metrics | None = None, *, period_s: float = 60.0,
                 clock: Callable[[], float] = time.time, healer: Healer | None = None) -> None:
        self._probes, self._store, self._alerts, self._healer = probes, store, alerts, healer
        self._metrics = metrics or NoMetrics()
        self._period_s, self._clock = period_s, clock

    def run(self) -> HealthReport:
        previous, last_run = self._store.load()
        now = self._clock()
        results = [result for probe in self._probes for result in self._run(probe)]
        results.append(_scheduler_lag(last_run, now, self._period_s))
        verdict = evaluate(previous, results)
        self._store.save(verdict.states, now)  # before sending: a crash never repeats an alert
        for text in [*verdict.alerts, *self._heal(verdict.states, results), *verdict.recoveries]:
            try:
                self._alerts.send(text)
            except Exception as exc:  # Telegram down too: the log line and the metrics remain
                log_failure("health alert not sent", exc)
        try:
            self._metrics.publish(results)
        except Exception as exc:
            log_failure("health metrics not published", exc)
        report = HealthReport(overall(results), results, verdict.alerts, verdict.recoveries)
        failing = {r.name: r.detail for r in results if r.level != "ok"}
        get_logger().info("health checked", extra={"health": report.status, "failing": failing})
        return report

    def _heal(self, states: dict[str, CheckState], results: list[CheckResult]) -> list[str]:
        due = restarts_due(states, results)
        if not due or self._healer is None:
            return []
        try:
            return self._healer.heal(due)
        except Exception as exc:  # the database is down too: the alerts above still go out
            log_failure("agent restart not requested", exc)
            return []

    @staticmethod
    def _run(probe: HealthProbe) -> list[CheckResult]:
        try:
            result = probe.check()
        except Exception as exc:  # a probe that breaks is itself a failing check
            return [CheckResult(probe.name, CRITICAL, type(exc).__name__)]
        return result if isinstance(result, list) else [result]


def _scheduler_lag(last_run: float | None, now: float, period_s: float) -> CheckResult:
    """The monitor is scheduled every `period_s`: a longer gap is how late the scheduler runs."""
    if last_run is None:
        return CheckResult("scheduler", "ok", "first run")
    lag = now - last_run - period_s
    if lag > 10 * period_s:
        return CheckResult("scheduler", "warning", f"the last check ran {now - last_run:.0f} s ago")
    return CheckResult("scheduler", "ok", f"lag {max(0.0, lag):.0f} s")
