"""The console's rules page reads the one instruction store's live list (`GET /api/rules`): a rule
its file dropped or a flagged rule is not shown as a rule; a flagged rule waits in its own table
with Keep new / Keep old / Keep both."""

from __future__ import annotations

import re
from typing import Any

import requests

from tests.conftest import RunningApi
from tests.support.console_client import ConsoleUser

PROJECT = "github.com/acme/console-rules"


def post(api: RunningApi, path: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = requests.post(api.url + path, json=body, headers=api.headers, timeout=120)
    assert answer.status_code in (200, 201), answer.text
    return dict(answer.json())


def import_file(api: RunningApi, path: str, content: str) -> dict[str, Any]:
    items = [{"category": "project_rule", "content": content, "path": path, "tool": "claude", "line": 1}]
    return post(api, "/api/memory/import-rules", {"project": PROJECT, "items": items})


def rules_table(page: str) -> str:
    return page[page.index('id="learned-table"'):]


def test_the_rules_page_shows_the_live_rules_and_settles_a_flagged_one(api: RunningApi) -> None:
    post(api, "/api/project/rules", {"project": PROJECT, "rule": "Always use yarn for package installs"})
    import_file(api, "CLAUDE.md", "Keep migrations additive and numbered")
    import_file(api, "CLAUDE.md", "Always use npm for package installs")  # flagged; the first one retired
    user = ConsoleUser(api.url)
    user.sign_in(api.key)

    page = user.get("/console/learning", params={"project": PROJECT}).text

    shown = rules_table(page)
    assert "Always use yarn for package installs" in shown
    assert "Keep migrations additive" not in shown and "Always use npm" not in shown
    clash = page[page.index('id="clash-table"'):page.index('id="learned-table"')]
    assert "Always use npm for package installs" in clash and "Keep new" in clash
    (action,) = re.findall(r'action="([^"]*/console/learning/clashes/[^"]*/keep_new)"', page)

    assert user.post(action[action.index("/console/"):], {"csrf": user.csrf}).status_code == 303

    after = user.get("/console/learning", params={"project": PROJECT}).text
    assert 'id="clash-table"' not in after
    assert "Always use npm for package installs" in rules_table(after)
    assert "Always use yarn" not in rules_table(after)
