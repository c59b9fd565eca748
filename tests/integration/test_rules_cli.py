"""`itachi rules [--project P] [--as-of DATE]` against a running API: the one list of live rules,
and the rules live at a past time."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

from tests.conftest import RunningApi
from tests.integration.memory.conftest import call
from tests.integration.memory.test_memory_cli import itachi

PROJECT = "github.com/acme/cli-rules"


def teach(api: RunningApi, rule: str) -> None:
    status, answer = call(api, "POST", "/api/project/rules", {"project": PROJECT, "rule": rule})
    assert status in (200, 201), answer


def test_itachi_rules_lists_the_live_rules_and_those_live_as_of_a_past_time(api: RunningApi) -> None:
    teach(api, "Run the tests with -n 4")
    time.sleep(0.05)
    between = datetime.now(UTC).isoformat()
    time.sleep(0.05)
    teach(api, "Run the tests with -n 8")

    now = itachi(api, "rules", "--project", PROJECT)
    then = itachi(api, "rules", "--project", PROJECT, "--as-of", between, "--json")
    before = itachi(api, "rules", "--project", PROJECT, "--as-of", "2001-01-01")

    assert now.returncode == 0, now.stderr
    assert "- Run the tests with -n 8  [project, user, x1, since " in now.stdout and "-n 4" not in now.stdout
    assert [r["text"] for r in json.loads(then.stdout)["rules"]] == ["Run the tests with -n 4"]
    assert before.returncode == 0 and before.stdout.strip() == "No rules were live at 2001-01-01."


def test_itachi_rules_with_an_unreadable_date_says_why_and_fails(api: RunningApi) -> None:
    done = itachi(api, "rules", "--project", PROJECT, "--as-of", "last tuesday")

    assert done.returncode == 1 and "as_of" in done.stderr
