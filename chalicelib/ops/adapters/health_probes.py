"""The health monitor's checks: API, database, queues, DLQs, machine heartbeats, LLM budget."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from chalicelib.kernel.errors import DomainError
from chalicelib.ops.domain.health_rules import AGENT_CHECK_PREFIX, CRITICAL, OK, WARNING, CheckResult

if TYPE_CHECKING:
    from chalicelib.kernel.queues import SqsQueues

QUEUE_BACKLOG_WARNING = 1000
BUDGET_WARNING_SHARE = 0.8


class HealthProbe(Protocol):
    name: str

    def check(self) -> CheckResult | list[CheckResult]: ...


def _reason(exc: Exception) -> str:
    return exc.message if isinstance(exc, DomainError) else type(exc).__name__


class DatabaseCheck:
    name = "database"

    def __init__(self, ping: Callable[[], None]) -> None:
        self._ping = ping

    def check(self) -> CheckResult:
        try:
            self._ping()
        except Exception as exc:
            return CheckResult(self.name, CRITICAL, _reason(exc))
        return CheckResult(self.name, OK)


class ApiCheck:
    """GET /health of the API as its clients reach it: down (no answer) is critical; a 503 means a
    part behind it is down, which that part's own check reports."""

    name = "api"

    def __init__(self, url: str, timeout_s: float = 5.0) -> None:
        self._url, self._timeout_s = url.rstrip("/") + "/health", timeout_s

    def check(self) -> CheckResult:
        try:
            with urllib.request.urlopen(self._url, timeout=self._timeout_s) as answer:  # noqa: S310 (our API)
                status = answer.status
        except urllib.error.HTTPError as exc:
            status = exc.code
        except (OSError, ValueError) as exc:
            return CheckResult(self.name, CRITICAL, f"no answer from {self._url}: {type(exc).__name__}")
        if status == 200:
            return CheckResult(self.name, OK)
        return CheckResult(self.name, WARNING if status == 503 else CRITICAL, f"/health answered {status}")


class QueueCheck:
    name = "queues"

    def __init__(self, queues: Callable[[], SqsQueues], keys: tuple[str, ...]) -> None:
        self._queues, self._keys = queues, keys

    def check(self) -> CheckResult:
        try:
            depths = self._depths("")
        except Exception as exc:
            return CheckResult(self.name, CRITICAL, f"SQS unreachable: {_reason(exc)}")
        backlog = {k: d for k, d in depths.items() if d >= QUEUE_BACKLOG_WARNING}
        if backlog:
            return CheckResult(self.name, WARNING, ", ".join(f"{k}: {d} waiting" for k, d in backlog.items()))
        return CheckResult(self.name, OK)

    def _depths(self, suffix: str) -> dict[str, int]:
        """Messages waiting in each queue `<key><suffix>`, by key."""
        return {key: self._queues().depth(f"{key}{suffix}") for key in self._keys}


class DlqCheck(QueueCheck):
    name = "dlqs"

    def check(self) -> CheckResult:
        try:
            depths = self._depths("-dlq")
        except Exception as exc:
            return CheckResult(self.name, WARNING, f"DLQs unreadable: {_reason(exc)}")
        full = {k: d for k, d in depths.items() if d}
        if full:
            return CheckResult(self.name, WARNING, ", ".join(f"{k}-dlq: {d}" for k, d in full.items()))
        return CheckResult(self.name, OK)


class MachinesCheck:
    """Machines that went quiet without a clean stop (their heartbeats stopped)."""

    name = "machines"

    def __init__(self, machines: Callable[[], list[dict[str, Any]]]) -> None:
        self._machines = machines

    def check(self) -> CheckResult:
        try:
            listed = self._machines()
        except Exception as exc:  # the database check says why
            return CheckResult(self.name, WARNING, f"unknown: {_reason(exc)}")
        quiet = [m["id"] for m in listed if m["status"] == "offline" and m["reported_status"] != "offline"]
        if quiet:
            return CheckResult(self.name, WARNING, f"no heartbeat from {', '.join(quiet)}")
        return CheckResult(self.name, OK, f"{len(listed)} machine(s)")


class LlmBudgetCheck:
    name = "llm_budget"

    def __init__(self, today: Callable[[], dict[str, Any] | None]) -> None:
        self._today = today

    def check(self) -> CheckResult:
        try:
            today = self._today()
        except Exception as exc:
            return CheckResult(self.name, WARNING, f"unknown: {_reason(exc)}")
        if not today or not today.get("budget_usd"):
            return CheckResult(self.name, OK, "no LLM")
        share = float(today["spent_usd"]) / float(today["budget_usd"])
        detail = f"${today['spent_usd']:.4f} of ${today['budget_usd']:.2f} today"
        return CheckResult(self.name, WARNING if share >= BUDGET_WARNING_SHARE else OK, detail)


class AgentsCheck:
    """One check per agent that heartbeats: critical while a task sent to it waits unclaimed past
    `unclaimed_after_s` (a healthy agent claims within a second; its queue reader is stuck).
    Draining agents are restarting already, and silent ones are the machines check's."""

    name = "agents"

    def __init__(self, machines: Callable[[], list[dict[str, Any]]],
                 unclaimed: Callable[[], dict[str, tuple[str, float]]],
                 unclaimed_after_s: float = 60.0) -> None:
        self._machines, self._unclaimed, self._after_s = machines, unclaimed, unclaimed_after_s

    def check(self) -> list[CheckResult]:
        try:
            waiting = self._unclaimed()  # machine -> (its oldest unclaimed task, seconds since it was sent)
            machines = self._machines()
        except Exception as exc:  # the database check says why
            return [CheckResult(self.name, WARNING, f"unknown: {_reason(exc)}")]
        results = []
        for machine in machines:
            if machine["status"] not in ("online", "paused"):
                continue
            name = f"{AGENT_CHECK_PREFIX}{machine['id']}"
            task, age = waiting.get(machine["id"], ("", 0.0))
            if age > self._after_s:
                detail = f"task {task[:8]} sent {age:.0f} s ago is not claimed"
                results.append(CheckResult(name, CRITICAL, detail))
            else:
                results.append(CheckResult(name, OK))
        return results
