"""The console's review queue over real HTTP: a decision needs the session's CSRF token, is made
once (a second is refused with 409 and changes nothing), and bad input is a 400, never a 500."""

from __future__ import annotations

import pytest

from chalicelib.memory.domain.memory_model import MemoryDraft
from tests.conftest import RunningApi
from tests.support.console_client import ConsoleUser

pytestmark = pytest.mark.integration


def test_a_waiting_memory_is_decided_once_and_only_with_the_csrf_token(api: RunningApi) -> None:
    stored = api.container.memory.remember(MemoryDraft(
        project="web", category="fact", content="The CDN purges <b>every</b> hour.", source="web"))
    user = ConsoleUser(api.url)
    user.sign_in(api.key)
    page = user.get("/console/review")
    assert page.status_code == 200 and f"/console/review/{stored.id}/drop" in page.text
    assert "<b>every</b>" not in page.text and "&lt;b&gt;every&lt;/b&gt;" in page.text

    assert user.post(f"/console/review/{stored.id}/keep", {}).status_code == 403
    assert not api.container.memory.get(stored.id, record_access=False).trusted
    blank = user.post(f"/console/review/{stored.id}/edit", {"csrf": user.csrf, "content": " "})
    assert blank.status_code == 400
    assert user.post(f"/console/review/{stored.id}/maybe", {"csrf": user.csrf}).status_code == 400
    assert user.post("/console/review/not-an-id/keep", {"csrf": user.csrf}).status_code == 400

    kept = user.post(f"/console/review/{stored.id}/keep", {"csrf": user.csrf})
    assert kept.status_code == 303 and kept.headers["Location"] == "/console/review?done=kept"
    memory = api.container.memory.get(stored.id, record_access=False)
    assert memory.trusted and memory.metadata["reviewed_by"] == "console:deployment"
    assert user.post(f"/console/review/{stored.id}/drop", {"csrf": user.csrf}).status_code == 409
    assert api.container.memory.get(stored.id, record_access=False).phase == 0
    assert stored.id not in user.get("/console/review").text
