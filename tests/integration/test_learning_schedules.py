"""The weekly learning handlers, invoked the way the local scheduler and EventBridge invoke them."""

from __future__ import annotations

from chalicelib.bootstrap import Container
from chalicelib.kernel.schedule_table import SCHEDULES
from chalicelib.learning.services.insight_extraction import SessionTranscript
from infra.local.scheduler import run_schedule_once

BY_NAME = {spec.name: spec for spec in SCHEDULES}
DECISIONS = """User: We decided to ship the CLI before the web UI.
User: We decided to use SQLite for the local cache.
User: We decided to keep one repository for the agent and the server.
User: From now on, always run the linter before committing."""


def test_both_weekly_learning_schedules_are_in_the_table() -> None:
    assert BY_NAME["effectiveness-decay"].rate_expression == "rate(7 days)"
    assert BY_NAME["reflection"].rate_expression == "rate(7 days)"


def test_the_effectiveness_handler_reports_its_counts(container: Container) -> None:
    assert run_schedule_once(BY_NAME["effectiveness-decay"]) == {"reviewed": 0, "boosted": 0, "decayed": 0}


def test_the_reflection_handler_writes_a_digest_without_an_llm(container: Container) -> None:
    container.insight_extraction.submit(SessionTranscript("s1", "cli", DECISIONS, ("a.py", "b.py")))

    result = run_schedule_once(BY_NAME["reflection"])

    assert result["documents"] == [{"project": "cli", "generator": "digest"}]  # type: ignore[index]
