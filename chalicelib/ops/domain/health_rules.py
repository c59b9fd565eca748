"""The health monitor's rules: when a failing check alerts, and when it says it recovered.

A check is `ok`, `warning` (worth seeing in `itachi status`, never paged) or `critical`. After
`ALERT_AFTER` consecutive critical results a check alerts once; it stays quiet while it keeps
failing, and says so once when it is no longer critical. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

ALERT_AFTER = 3
OK, WARNING, CRITICAL = "ok", "warning", "critical"


@dataclass(frozen=True)
class CheckResult:
    name: str
    level: str
    detail: str = ""


@dataclass(frozen=True)
class CheckState:
    failures: int = 0  # consecutive critical results
    alerted: bool = False
    detail: str = ""

    def to_json(self) -> dict[str, object]:
        return {"failures": self.failures, "alerted": self.alerted, "detail": self.detail}

    @classmethod
    def from_json(cls, raw: Mapping[str, object]) -> CheckState:
        failures = raw.get("failures", 0)
        return cls(int(failures) if isinstance(failures, int | float | str) else 0,
                   bool(raw.get("alerted", False)), str(raw.get("detail", "")))


@dataclass(frozen=True)
class Verdict:
    states: dict[str, CheckState]
    alerts: list[str]
    recoveries: list[str]


def evaluate(previous: Mapping[str, CheckState], results: Sequence[CheckResult],
             alert_after: int = ALERT_AFTER) -> Verdict:
    states: dict[str, CheckState] = dict(previous)
    alerts: list[str] = []
    recoveries: list[str] = []
    for result in results:
        before = previous.get(result.name, CheckState())
        if result.level == CRITICAL:
            failures = before.failures + 1
            alert = failures >= alert_after and not before.alerted
            if alert:
                alerts.append(f"🔴 {result.name} has failed {failures} checks in a row: {result.detail}")
            states[result.name] = CheckState(failures, before.alerted or alert, result.detail)
        else:
            if before.alerted:
                recoveries.append(f"🟢 {result.name} recovered after {before.failures} failed checks"
                                  + (f" ({result.detail})" if result.detail else ""))
            states[result.name] = CheckState(0, False, result.detail)
    return Verdict(states, alerts, recoveries)


def overall(results: Sequence[CheckResult]) -> str:
    levels = {r.level for r in results}
    return CRITICAL if CRITICAL in levels else WARNING if WARNING in levels else OK


AGENT_CHECK_PREFIX = "agent:"  # one check per machine's agent: "agent:<machine id>"


def restarts_due(states: Mapping[str, CheckState], results: Sequence[CheckResult],
                 every: int = ALERT_AFTER) -> list[tuple[str, CheckState]]:
    """(machine id, state) of each agent whose check has just been critical `every`, 2 x `every`...
    times in a row: a restart per `every` consecutive failures, never one per failed check."""
    due = []
    for result in results:
        state = states.get(result.name)
        if (result.level == CRITICAL and result.name.startswith(AGENT_CHECK_PREFIX) and state is not None
                and state.failures >= every and state.failures % every == 0):
            due.append((result.name.removeprefix(AGENT_CHECK_PREFIX), state))
    return due
