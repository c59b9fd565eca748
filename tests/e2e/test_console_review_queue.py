"""The console's review queue in a real browser (Debian's headless Chromium through Playwright)
against the API on a real HTTP server over Postgres: what an agent stored untrusted and a rule a
key proposed wait there; a person keeps one, edits and keeps another, drops a third, each recorded
as the console's key, and hostile text stays text."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from chalicelib.memory.domain.memory_lifecycle import ARCHIVED
from tests.conftest import RunningApi
from tests.support.chromium import browser_page, ensure_chromium, screenshot

pytestmark = pytest.mark.e2e
PROJECT = "review-app"
HOSTILE = "The deploy notes <script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">"


def _agent_finding(api: RunningApi, content: str) -> str:
    answer = requests.post(api.url + "/api/memory", headers=api.headers, timeout=120,
                           json={"project": PROJECT, "category": "fact", "content": content,
                                 "source": "agent"})
    assert answer.status_code == 201, answer.text
    assert answer.json()["trusted"] is False
    return str(answer.json()["id"])


def _press(page: Any, memory_id: str, decision: str) -> None:
    page.click(f"form[action$='/console/review/{memory_id}/{decision}'] button")


def test_a_person_keeps_edits_and_drops_waiting_memories_in_the_console(api: RunningApi) -> None:
    chromium = ensure_chromium()
    api.container.warm_up()
    kept = _agent_finding(api, "The payments webhook retries for 72 hours.")
    edited = _agent_finding(api, "The search cluster has three nodes.")
    dropped = _agent_finding(api, HOSTILE)
    rule = api.container.project_rules.teach(PROJECT, "Tag every release in the changelog", writer="key")
    assert rule["outcome"] == "proposed"
    memory = api.container.memory

    with browser_page(chromium) as page:
        page.goto(f"{api.url}/console/review")
        assert page.url.endswith("/console/login")
        page.fill("#key", api.key)
        page.click("#login button[type=submit]")
        page.wait_for_url("**/console/memories")
        page.click("nav a[href$='/console/review']")
        page.wait_for_selector("#review-table")
        assert "4 waiting" in page.inner_text("#review-count")
        assert "proposed rule" in page.inner_text("#review-table")
        assert page.locator("#review-table script, #review-table img").count() == 0
        assert page.input_value(f"#content-{dropped}") == HOSTILE
        screenshot(page, "30-review-queue")

        _press(page, kept, "keep")
        page.wait_for_selector("text=Kept: it is trusted now.")
        page.fill(f"#content-{edited}", "The search cluster has five nodes since the upgrade.")
        _press(page, edited, "edit")
        page.wait_for_selector("text=Edited and kept.")
        _press(page, dropped, "drop")
        page.wait_for_selector("text=Dropped: archived.")
        _press(page, rule["id"], "keep")
        page.wait_for_selector("text=Kept: it is trusted now.")
        page.wait_for_selector("#review-table.empty, p#review-table")
        assert page.evaluate("window.__pwned") is None
        screenshot(page, "31-review-queue-done")

    first, second, third = (memory.get(i, record_access=False) for i in (kept, edited, dropped))
    assert first.trusted and first.metadata["reviewed_by"].startswith("console:")
    assert first.metadata["reviewed_at"]
    assert second.trusted and second.content == "The search cluster has five nodes since the upgrade."
    assert third.phase == ARCHIVED and not third.trusted and third.metadata["review"] == "dropped"
    assert first.promoted_by == first.metadata["reviewed_by"] == second.metadata["reviewed_by"]
    assert [r["id"] for r in api.container.project_rules.learnings(PROJECT)] == [rule["id"]]
    assert api.container.memory_review.waiting(PROJECT) == []
