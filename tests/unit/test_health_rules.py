"""The health monitor's alert rule: once after three critical checks, once on recovery."""

from __future__ import annotations

from chalicelib.ops.domain.health_rules import CheckResult, CheckState, evaluate, overall, restarts_due


def run(states: dict[str, CheckState], level: str) -> tuple[dict[str, CheckState], list[str], list[str]]:
    verdict = evaluate(states, [CheckResult("database", level, "refused")])
    return verdict.states, verdict.alerts, verdict.recoveries


def test_a_check_alerts_on_its_third_critical_result_and_not_again_while_it_stays_down() -> None:
    states: dict[str, CheckState] = {}
    said = []
    for _ in range(6):
        states, alerts, recoveries = run(states, "critical")
        said.append((len(alerts), len(recoveries)))
    assert said == [(0, 0), (0, 0), (1, 0), (0, 0), (0, 0), (0, 0)]
    assert states["database"] == CheckState(6, True, "refused")


def test_recovery_is_said_once_and_only_after_an_alert() -> None:
    states, _, _ = run({}, "critical")
    states, _, recoveries = run(states, "ok")
    assert recoveries == []  # two blips never paged anyone
    for _ in range(3):
        states, _, _ = run(states, "critical")
    states, _, recoveries = run(states, "warning")
    assert recoveries == ["🟢 database recovered after 3 failed checks (refused)"]
    assert run(states, "ok")[2] == []


def test_the_overall_status_is_the_worst_check() -> None:
    assert overall([CheckResult("a", "ok"), CheckResult("b", "warning")]) == "warning"
    assert overall([CheckResult("a", "critical"), CheckResult("b", "warning")]) == "critical"
    assert overall([CheckResult("a", "ok")]) == "ok"


def test_an_agent_is_due_for_a_restart_on_every_third_failure_in_a_row_and_other_checks_never() -> None:
    states: dict[str, CheckState] = {}
    due_at = []
    for n in range(1, 8):
        results = [CheckResult("agent:box", "critical", "stuck"), CheckResult("database", "critical", "x")]
        states = evaluate(states, results).states
        if restarts_due(states, results):
            due_at.append((n, restarts_due(states, results)[0][0]))
    assert due_at == [(3, "box"), (6, "box")]
    assert restarts_due(states, [CheckResult("agent:box", "ok")]) == []
