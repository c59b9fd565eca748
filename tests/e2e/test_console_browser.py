"""End to end in a real browser: Debian's headless Chromium (Playwright) on a running `itachi up`.

Sign in with the API key, find a stored memory with the hybrid search, edit it and see the change
through the API, forget it, watch hostile text render as text, follow a task's live output to its
result, see the spend chart, sign out and back in with `itachi console`'s one-time link.
Screenshots of every page go to test-artifacts/console/.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chalicelib.contracts.api_transport import ApiError
from tests.support.agent_harness import fake_engine_env, make_repo
from tests.support.chromium import browser_page, ensure_chromium, screenshot
from tests.support.orchestration import client_for, wait_for
from tests.support.up_process import UpProcess

pytestmark = pytest.mark.e2e
HOSTILE = (
    '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
    '<a href="javascript:window.__pwned = 3">click</a> javascript:alert(4)'
)


def test_a_person_signs_in_fixes_memory_follows_a_task_and_sees_spend_in_a_real_browser(
    tmp_path: Path, up_root: Path,
) -> None:
    chromium = ensure_chromium()
    home, repo = up_root / "home", make_repo(tmp_path / "repo")
    env = {
        **fake_engine_env(tmp_path / "engine.log"),
        "ITACHI_AGENT_POLL_S": "1",
        "ITACHI_AGENT_HEARTBEAT_S": "1",
    }
    up = UpProcess(home, env=env)
    try:
        wait_for(lambda: any(f"{up.url}/console" in line for line in up.lines()), what="the console URL")
        key = json.loads((home / "config.json").read_text())["api_key"]
        client = client_for(up.url, key)
        fact = client.post(
            "/api/memory",
            {
                "project": "webapp",
                "category": "fact",
                "content": "The staging database sits behind the bastion host on port 6543",
            },
        )
        hostile = client.post("/api/memory", {"project": "webapp", "category": "fact", "content": HOSTILE})
        with browser_page(chromium) as page:
            dialogs: list[str] = []
            page.on("dialog", lambda d: dialogs.append(d.message))
            _sign_in_and_fix_memory(page, up.url, key, client, fact["id"])
            _hostile_text_stays_text(page, up.url, hostile["id"])
            _follow_a_task(page, up.url, client, str(repo))
            _read_only_pages(page, up.url)
            _sign_out_and_in_with_a_link(page, up.url, home)
            assert all(d.startswith(("Forget", "Cancel")) for d in dialogs), dialogs
    finally:
        up.stop()


def _sign_in_and_fix_memory(page: Any, url: str, key: str, client: Any, memory_id: str) -> None:
    page.goto(url + "/console")
    assert page.url.endswith("/console/login")
    screenshot(page, "01-sign-in")
    page.fill("#key", key)
    page.click("#login button[type=submit]")
    page.wait_for_url("**/console/memories")
    assert key not in page.content()
    page.fill("#f-q", "where is the staging database")
    page.click("#search")
    page.wait_for_selector("#results .note:has-text('best matches')")  # htmx swapped the results in
    assert "hybrid search" in page.inner_text("#results")
    assert "q=where%20is%20the%20staging%20database" in page.url  # and pushed the search into the history
    page.wait_for_selector(f"#results a[href$='/console/memories/{memory_id}']")
    screenshot(page, "02-memories-search")
    page.click(f"a[href$='/console/memories/{memory_id}']")
    page.wait_for_selector("#memory-content")
    assert "bastion host on port 6543" in page.inner_text("#memory-content")
    assert "access count" in page.inner_text("dl.facts")
    screenshot(page, "03-memory")
    page.fill("#edit-content", "The staging database sits behind the bastion host on port 7000")
    page.click("#save")
    page.wait_for_selector("text=Saved.")
    assert client.get(f"/api/memory/{memory_id}")["content"].endswith("port 7000")
    page.click("text=Pin as keep")
    page.wait_for_selector("text=Pinned as keep.")
    assert "keep" in client.get(f"/api/memory/{memory_id}")["tags"]
    page.click("form[action$='/forget'] button")
    page.wait_for_selector("text=Memory forgotten.")
    with pytest.raises(ApiError) as gone:
        client.get(f"/api/memory/{memory_id}")
    assert gone.value.status == 404


def _hostile_text_stays_text(page: Any, url: str, memory_id: str) -> None:
    page.goto(f"{url}/console/memories/{memory_id}")
    assert page.inner_text("#memory-content") == HOSTILE
    assert page.locator("#memory-content *").count() == 0  # no element made from the stored text
    assert page.locator("a[href^='javascript']").count() == 0
    page.goto(url + "/console/memories?project=webapp")
    assert page.locator("#memory-table script, #memory-table img").count() == 0
    assert page.evaluate("window.__pwned") is None
    screenshot(page, "04-hostile-memory")


def _follow_a_task(page: Any, url: str, client: Any, repo: str) -> None:
    task = client.post(
        "/api/tasks",
        {
            "description": "[fake:sleep=5] [fake:write=done.txt] write done.txt",
            "project": "webapp",
            "repo": repo,
            "engine": "claude",
        },
    )
    page.goto(f"{url}/console/tasks/{task['id']}")
    first = page.locator("#output .event").count()
    page.wait_for_selector("#result", timeout=180_000)  # the poller swaps in the result when it ends
    status = client.get(f"/api/tasks/{task['id']}")["status"]
    assert status == "completed" and page.inner_text("#task-status") == "completed"
    kinds = page.eval_on_selector_all("#output .event", "els => els.map(e => e.classList[1])")
    assert len(kinds) > first and {"started", "completed"} <= set(kinds)
    assert page.get_attribute("#poller", "hx-get") is None  # polling stopped
    # the summary followed too: no Cancel on a finished task, a Retry instead, the attempt counted
    assert page.locator("form[action$='/cancel']").count() == 0
    assert page.locator("form[action$='/retry']").count() == 1 and "1/2" in page.inner_text("#task-summary")
    screenshot(page, "05-task-live-output")
    page.goto(url + "/console/tasks")
    assert task["id"] in page.content()
    screenshot(page, "06-tasks")


def _read_only_pages(page: Any, url: str) -> None:
    page.goto(url + "/console/spend")
    page.wait_for_selector("#spend-chart[data-rendered]")
    page.wait_for_selector("#embedding-chart[data-rendered]")
    assert int(page.get_attribute("#embedding-chart", "data-rendered")) >= 1  # memories embedded today
    screenshot(page, "07-spend")
    for name in ("sessions", "learning", "machines"):
        page.goto(f"{url}/console/{name}")
        assert page.locator("h1").inner_text()
        screenshot(page, f"08-{name}")
    assert "online" in page.inner_text("#machine-table")


def _sign_out_and_in_with_a_link(page: Any, url: str, home: Path) -> None:
    page.click("#sign-out")
    page.wait_for_url("**/console/login")
    page.goto(url + "/console/tasks")
    assert page.url.endswith("/console/login")
    printed = subprocess.run(
        [sys.executable, "-m", "agent.cli", "console"],
        capture_output=True,
        text=True,
        env={**os.environ, "ITACHI_HOME": str(home)},
        timeout=60,
        check=True,
    ).stdout
    link = next(word for word in printed.split() if "/console/login?link=" in word)
    page.goto(link)
    page.wait_for_url("**/console/memories")
    page.goto(link)  # spent
    assert "spent or expired" in page.content()
