"""The console's pages over real HTTP: stored text escaped everywhere, memory and task actions."""

from __future__ import annotations

import re

import pytest
import requests

from tests.conftest import RunningApi
from tests.support.console_client import ConsoleUser

pytestmark = pytest.mark.integration
PAYLOADS = (
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(2)">',
    '<a href="javascript:alert(3)">x</a>',
    "javascript:alert(4)",
    '"><svg onload=alert(5)>',
)


def _store(api: RunningApi, content: str, project: str = "console", **fields: str) -> str:
    answer = requests.post(
        api.url + "/api/memory",
        headers=api.headers,
        timeout=120,
        json={"project": project, "content": content, **fields},
    )
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def _body(page: str) -> str:
    return page.split("<main>", 1)[1]


def test_memories_holding_script_img_and_javascript_payloads_render_as_text(api: RunningApi) -> None:
    hostile = " ".join(PAYLOADS)
    memory_id = _store(api, hostile, project='pro<b>ject"', category="fact", summary="<script>s()</script>")
    user = ConsoleUser(api.url)
    user.sign_in(api.key)
    pages = [
        user.get(f"/console/memories/{memory_id}").text,
        user.get("/console/memories").text,
        user.get("/console/memories", params={"q": "alert script", "project": 'pro<b>ject"'}).text,
    ]
    for page in pages:
        body = _body(page)
        assert "<script" not in body and "<img" not in body and "<svg" not in body and "<b>" not in body
        assert not re.search(r"<[a-z][^>]*\son[a-z]+\s*=", body)  # no real tag carries an event handler
        assert 'href="javascript' not in body.lower()
    detail = _body(pages[0])
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;" in detail
        and "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in detail
    )
    assert memory_id in pages[2]  # the hybrid search found it through the escaped project filter


def test_a_task_description_and_its_output_are_escaped_and_polled_with_a_cursor(api: RunningApi) -> None:
    task = requests.post(
        api.url + "/api/tasks",
        headers=api.headers,
        timeout=120,
        json={"project": "console", "description": "<script>alert('task')</script> fix the login"},
    ).json()
    user = ConsoleUser(api.url)
    user.sign_in(api.key)
    page = user.get(f"/console/tasks/{task['id']}")
    assert page.status_code == 200 and "<script>alert" not in page.text
    assert f'hx-get="/console/tasks/{task["id"]}/output?after=1"' in page.text  # `created` is event 1
    poll = user.get(
        f"/console/tasks/{task['id']}/output", params={"after": "1"}, headers={"HX-Request": "true"}
    )
    assert poll.status_code == 200 and 'id="poller"' in poll.text and "every 1s" in poll.text
    assert 'hx-swap-oob="beforeend:#output"' not in poll.text  # nothing new after the cursor
    whole = user.get(f"/console/tasks/{task['id']}/output", params={"after": "0"})
    assert 'hx-swap-oob="beforeend:#output"' in whole.text and "after=1" in whole.text
    assert user.get(f"/console/tasks/{task['id']}/output", params={"after": "-1"}).status_code == 400
    cancelled = user.post(f"/console/tasks/{task['id']}/cancel", {"csrf": user.csrf})
    assert cancelled.status_code == 303
    assert (
        requests.get(api.url + f"/api/tasks/{task['id']}", headers=api.headers, timeout=120).json()["status"]
        == "cancelled"
    )
    retried = user.post(f"/console/tasks/{task['id']}/retry", {"csrf": user.csrf})
    assert retried.status_code == 303
    new_id = retried.headers["Location"].split("/console/tasks/")[1].split("?")[0]
    again = requests.get(api.url + f"/api/tasks/{new_id}", headers=api.headers, timeout=120).json()
    assert (
        new_id != task["id"] and again["description"] == task["description"] and again["status"] == "queued"
    )
    done = user.get(f"/console/tasks/{task['id']}/output", params={"after": "0"})
    assert 'data-done="true"' in done.text and "Result: cancelled" in done.text


def test_editing_pinning_and_restoring_a_memory_go_through_the_memory_services(api: RunningApi) -> None:
    memory_id = _store(api, "Run make test before pushing", category="project_rule")
    user = ConsoleUser(api.url)
    user.sign_in(api.key)
    edited = user.post(
        f"/console/memories/{memory_id}/edit",
        {"csrf": user.csrf, "content": "Run make test and ruff before pushing"},
    )
    assert edited.status_code == 303
    through_api = requests.get(api.url + f"/api/memory/{memory_id}", headers=api.headers, timeout=120).json()
    assert through_api["content"] == "Run make test and ruff before pushing"
    assert user.post(f"/console/memories/{memory_id}/keep", {"csrf": user.csrf}).status_code == 303
    assert (
        "keep"
        in requests.get(api.url + f"/api/memory/{memory_id}", headers=api.headers, timeout=120).json()["tags"]
    )
    assert user.post(f"/console/memories/{memory_id}/keep", {"csrf": user.csrf}).status_code == 303
    assert (
        "keep"
        not in requests.get(api.url + f"/api/memory/{memory_id}", headers=api.headers, timeout=120).json()[
            "tags"
        ]
    )
    with api.container.db.connection() as conn:  # an evicted original, as an eviction run leaves it
        conn.execute(
            "INSERT INTO memory_archive (memory_id, project, category, content, summary) "
            "SELECT id, project, category, content, summary FROM memories WHERE id = %s",
            (memory_id,),
        )
        conn.execute(
            "UPDATE memories SET phase = 1, content = 'hint: tests first' WHERE id = %s", (memory_id,)
        )
    page = user.get(f"/console/memories/{memory_id}")
    assert "Restore from archive" in page.text and "hint" in page.text
    assert user.post(f"/console/memories/{memory_id}/restore", {"csrf": user.csrf}).status_code == 303
    restored = requests.get(api.url + f"/api/memory/{memory_id}", headers=api.headers, timeout=120).json()
    assert restored["content"] == "Run make test and ruff before pushing" and restored["phase"] == 0
    assert user.post(f"/console/memories/{memory_id}/explode", {"csrf": user.csrf}).status_code == 400
    empty = user.post(f"/console/memories/{memory_id}/edit", {"csrf": user.csrf, "content": "  "})
    assert empty.status_code == 400 and "content" in empty.text


def test_filters_reject_bad_input_with_a_message_and_the_other_pages_render(api: RunningApi) -> None:
    _store(api, "Lessons need outcomes to move confidence", category="task_lesson")
    user = ConsoleUser(api.url)
    user.sign_in(api.key)
    assert user.get("/console/memories", params={"since": "yesterday"}).status_code == 400
    assert user.get("/console/memories", params={"phase": "9"}).status_code == 400
    assert user.get("/console/memories/not-a-uuid").status_code == 400
    assert user.get("/console/memories", params={"after": "garbage|x"}).status_code == 400
    assert user.get("/console/tasks", params={"status": "sleeping"}).status_code == 400
    learning = user.get("/console/learning")
    assert learning.status_code == 200 and "Lessons need outcomes" in learning.text
    assert user.get("/console/spend", params={"days": "400"}).status_code == 400
    spend = user.get("/console/spend")
    assert spend.status_code == 200 and 'id="spend-data"' in spend.text and "<script>" not in spend.text
    for path in ("/console/sessions", "/console/machines", "/console/tasks"):
        assert user.get(path).status_code == 200, path
