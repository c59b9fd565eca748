"""The console's brain page: a real proposal from a brain cycle, approved from the browser's form."""

from __future__ import annotations

import pytest

from tests.conftest import RunningApi
from tests.integration.brain.conftest import fail_three_times
from tests.support.console_client import ConsoleUser

pytestmark = pytest.mark.integration


def test_a_pending_proposal_is_listed_and_approved_or_refused_without_the_csrf_token(api: RunningApi) -> None:
    task = fail_three_times(api.container, description="fix the <script>login</script> redirect")
    api.container.brain_loop.tick(force=True)
    (proposal,) = api.container.brain_decisions.list(status="pending")
    user = ConsoleUser(api.url)
    user.sign_in(api.key)
    page = user.get("/console/brain")
    assert page.status_code == 200 and proposal.title.split("<")[0] in page.text
    assert "<script>login" not in page.text and f"/console/brain/{proposal.id}/approve" in page.text
    assert user.post(f"/console/brain/{proposal.id}/approve", {}).status_code == 403
    assert api.container.brain_decisions.get(proposal.id).status == "pending"
    approved = user.post(f"/console/brain/{proposal.id}/approve", {"csrf": user.csrf})
    assert approved.status_code == 303 and approved.headers["Location"] == "/console/brain?done=approved"
    decided = api.container.brain_decisions.get(proposal.id)
    assert decided.status == "approved" and decided.decided_by == "console:deployment"
    retries = [t for t in api.container.tasks.list_tasks(project="web") if t.description == task.description]
    assert len(retries) == 2
    assert user.get("/console/brain", params={"status": "bogus"}).status_code == 400
    assert user.post(f"/console/brain/{proposal.id}/maybe", {"csrf": user.csrf}).status_code == 400
