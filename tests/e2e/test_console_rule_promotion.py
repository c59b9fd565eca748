"""Promote to a namespace in a real browser (Debian's headless Chromium through Playwright) against the
API on a real HTTP server over Postgres: one click on a member project's rule, confirmed, and the
rules page shows it as the namespace's."""

from __future__ import annotations

import pytest

from tests.conftest import RunningApi
from tests.support.chromium import browser_page, ensure_chromium, screenshot

pytestmark = pytest.mark.e2e
WEB, API = "github.com/acme/web", "github.com/acme/api"


def test_a_click_promotes_a_member_projects_rule_to_its_namespace(api: RunningApi) -> None:
    chromium = ensure_chromium()
    api.container.namespaces.create("acme", [WEB, API])
    rule = api.container.project_rules.teach(WEB, "Use yarn, not npm, for package installs")

    with browser_page(chromium) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: dialogs.append(d.message))
        page.goto(f"{api.url}/console/learning")
        page.fill("#key", api.key)
        page.click("#login button[type=submit]")
        page.wait_for_url("**/console/memories")
        page.click("nav a[href$='/console/learning']")
        page.select_option("form.filters select[name=project]", WEB)
        page.click("form.filters button[type=submit]")
        button = page.locator(f"form[action$='/console/learning/{rule['id']}/promote'] button")
        assert button.inner_text() == "Promote to acme"
        screenshot(page, "rules-promote-before")
        button.click()
        page.wait_for_selector("text=Promoted to acme: every project of acme reads the rule.")
        row = page.locator("#learned-table tbody tr")
        assert row.count() == 1 and "ns:acme" in row.inner_text() and rule["rule"] in row.inner_text()
        assert page.locator("form[action$='/promote']").count() == 0
        assert dialogs == ["Promote this rule to acme? Every project of acme reads it then."]
        screenshot(page, "rules-promote-after")
    (shared,) = [r for r in api.container.project_rules.listed(API) if r["text"] == rule["rule"]]
    assert shared["namespace"] == "acme"
