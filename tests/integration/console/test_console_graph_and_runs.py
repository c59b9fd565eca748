"""The console's graph pages (entities, a neighbourhood, contradictions) and subagent runs."""

from __future__ import annotations

import pytest

from tests.conftest import RunningApi
from tests.support.console_client import ConsoleUser

pytestmark = pytest.mark.integration
PROJECT = "billing"


def test_an_entitys_neighbourhood_is_shown_and_a_contradiction_is_resolved_with_the_csrf_token(
    api: RunningApi,
) -> None:
    container = api.container
    container.graph_store.run(
        {
            "project": PROJECT,
            "text": "Dana owns the billing <b>service</b>. "
            "Always deploy on Fridays. Never deploy on Fridays.",
        }
    )
    (dana,) = [n for n in container.graph_admin.entities(PROJECT, 50) if n.content == "Dana"]
    # The two rules of one text are reconciled by their wording: one open contradiction.
    (listed,) = container.graph_admin.contradictions(PROJECT)
    contradiction = listed["id"]
    user = ConsoleUser(api.url)
    user.sign_in(api.key)
    listing = user.get("/console/graph", params={"project": PROJECT})
    assert listing.status_code == 200 and f"/console/graph/{dana.id}" in listing.text
    assert (
        "Never deploy on Fridays." in listing.text
        and f"/contradictions/{contradiction}/keep_new" in listing.text
    )
    neighbourhood = user.get(f"/console/graph/{dana.id}")
    assert neighbourhood.status_code == 200 and "owns" in neighbourhood.text
    assert "<b>service</b>" not in neighbourhood.text
    path = f"/console/graph/contradictions/{contradiction}/keep_new"
    assert user.post(path, {}).status_code == 403
    assert container.graph_admin.contradictions(PROJECT)[0]["status"] == "open"
    assert user.post(path, {"csrf": user.csrf}).status_code == 303
    assert container.graph_admin.contradictions(PROJECT) == []  # resolved: none open
    assert user.post(path, {"csrf": user.csrf}).status_code == 409  # already resolved
    assert (
        user.post(f"/console/graph/contradictions/{contradiction}/keep_all", {"csrf": user.csrf}).status_code
        == 400
    )
    assert user.get("/console/graph/not-a-uuid").status_code == 400


def test_subagent_runs_are_listed_with_their_task_and_cancelled_from_the_tasks_page(api: RunningApi) -> None:
    from chalicelib.agents.services.runs import SpawnRequest

    run = api.container.agent_runs.spawn(
        SpawnRequest("code-reviewer", "review the <i>login</i> change", "web")
    )
    user = ConsoleUser(api.url)
    user.sign_in(api.key)
    page = user.get("/console/tasks")
    assert page.status_code == 200 and "code-reviewer" in page.text and "<i>login" not in page.text
    assert run.task_id and f"/console/tasks/{run.task_id}" in page.text
    assert user.post(f"/console/agents/{run.id}/cancel", {}).status_code == 403
    assert user.post(f"/console/agents/{run.id}/cancel", {"csrf": user.csrf}).status_code == 303
    assert (
        api.container.tasks.get(run.task_id).cancel_requested
        or api.container.tasks.get(run.task_id).status.value == "cancelled"
    )
