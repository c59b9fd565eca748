"""Instruction reconciliation without an LLM key: each new instruction the heuristic extractor
stores is judged against the similar live ones by its wording. A conflict with no explicit
replacement is listed (both kept in the graph, announced; the instruction store keeps the older in
force until a person settles it); "from now on", "instead of",
"anymore" replace the older rule. Through the ingest queue on moto, into real Postgres."""

from __future__ import annotations

from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch
from tests.conftest import RunningApi
from tests.integration.test_learning_loop_api import call

INGEST = next(spec for spec in QUEUES if spec.key == "ingest")
PROJECT = "rules"


def learn(api: RunningApi, text: str, source: str = "user") -> None:
    body = {"project": PROJECT, "text": text, "source": source}
    status, body = call(api, "POST", "/api/graph/ingest", body)
    assert status == 202, body
    assert deliver_batch(api.container.queues, INGEST, wait_s=5) == 1


def instructions(api: RunningApi, query: str) -> dict[str, dict[str, object]]:
    context = call(api, "GET", "/api/graph/context", project=PROJECT, query=query)[1]
    return {str(i["content"]): i for i in context["instructions"]}


def test_opposite_rules_without_a_replacement_are_listed_and_the_older_holds_until_settled(
    api: RunningApi,
) -> None:
    learn(api, "Always deploy the billing service on Fridays.")
    learn(api, "Never deploy the billing service on Fridays.")

    (listed,) = call(api, "GET", "/api/graph/contradictions", project=PROJECT)[1]["contradictions"]
    assert (listed["new"]["content"], listed["old"]["content"]) == (
        "Never deploy the billing service on Fridays.",
        "Always deploy the billing service on Fridays.",
    )
    assert "opposite rules (old: always, new: never)" in listed["reason"]
    assert listed["new"]["superseded_by"] is None and listed["old"]["superseded_by"] is None
    # The instruction store, which owns what is live, keeps the older rule in force and the newer
    # one waiting for a person.
    shown = instructions(api, "Can I deploy the billing service this Friday?")
    assert "Always deploy the billing service on Fridays." in shown
    assert "Never deploy the billing service on Fridays." not in shown
    status, resolved = call(
        api, "POST", f"/api/graph/contradictions/{listed['id']}/resolve", {"resolution": "keep_old"}
    )
    assert (status, resolved["status"]) == (200, "keep_old")
    assert "Never deploy the billing service on Fridays." not in instructions(api, "deploy billing on Friday")


def test_from_now_on_instead_of_and_anymore_replace_the_older_rule(api: RunningApi) -> None:
    learn(api, "Always ship production deploys on Tuesdays.")
    learn(api, "Use Celery for background jobs in the API.")
    learn(api, "Always squash commits when merging.")
    learn(api, "Always write commit messages in English.")
    result = api.container.graph_store.run(
        {
            "project": PROJECT,
            "text": (
                "From now on ship production deploys on Thursdays. Use SQS instead of Celery for "
                "background jobs in the API. Do not squash commits when merging anymore."
            ),
        }
    )

    shown = instructions(api, "production deploys, background jobs, merging commits and their messages")
    assert "From now on ship production deploys on Thursdays." in shown
    assert "Use SQS instead of Celery for background jobs in the API." in shown
    assert "Do not squash commits when merging anymore." in shown
    assert "Always write commit messages in English." in shown
    assert not {
        "Always ship production deploys on Tuesdays.",
        "Use Celery for background jobs in the API.",
        "Always squash commits when merging.",
    } & set(shown)
    assert call(api, "GET", "/api/graph/contradictions", project=PROJECT)[1]["contradictions"] == []
    trace = call(api, "GET", f"/api/graph/traces/{result['trace_id']}")[1]["trace"]
    superseded = {r["old_id"] for r in trace["reconciliation"] if r["verdict"] == "SUPERSEDES"}
    assert len(superseded) == 3 and {r["by"] for r in trace["reconciliation"]} == {"heuristic"}


def test_an_instruction_from_tool_output_neither_replaces_nor_contests_the_users(api: RunningApi) -> None:
    learn(api, "Always deploy the billing service on Fridays.")
    learn(api, "From now on never deploy the billing service on Fridays.", "tool")
    learn(api, "Never deploy the billing service on Fridays.", "web")

    assert call(api, "GET", "/api/graph/contradictions", project=PROJECT)[1]["contradictions"] == []
    assert "Always deploy the billing service on Fridays." in instructions(api, "deploy billing on Friday")
