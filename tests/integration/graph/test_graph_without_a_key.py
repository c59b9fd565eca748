"""Graph memory without an LLM key: the heuristic extractor builds the graph from what the user
says (through the ingest queue on moto, into real Postgres), and the fast path reads it back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from chalicelib.graph.services.graph_retrieve import GraphRetrieve
from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch
from tests.conftest import RunningApi
from tests.integration.test_learning_loop_api import call

INGEST = next(spec for spec in QUEUES if spec.key == "ingest")
PROJECT = "billing"
TOLD = (
    "Dana owns the billing service. From now on our team never deploys the billing service on Fridays. "
    "Actually, Lisa handles the Anderson account now. The Postgres migration is planned for 3 March."
)


def learn(api: RunningApi, text: str) -> None:
    status, body = call(api, "POST", "/api/graph/ingest", {"project": PROJECT, "text": text})
    assert status == 202, body
    assert deliver_batch(api.container.queues, INGEST, wait_s=5) == 1


def test_the_heuristic_builds_entities_instructions_with_scope_and_edges(api: RunningApi) -> None:
    learn(api, TOLD)

    names = {e["content"]: e for e in call(api, "GET", "/api/graph/entities", project=PROJECT)[1]["entities"]}
    assert {"Dana", "billing service", "Lisa", "Anderson account"} <= set(names)
    dana = call(api, "GET", f"/api/graph/entities/{names['Dana']['id']}")[1]
    assert ("owns", "out", "billing service") in {
        (r["type"], r["direction"], r["node"]["content"]) for r in dana["relationships"]
    }
    context = call(
        api, "GET", "/api/graph/context", project=PROJECT, query="Can I deploy billing service today?"
    )
    assert context[0] == 200
    (rule,) = [i for i in context[1]["instructions"] if "Fridays" in i["content"]]
    assert (rule["type"], rule["scope"], rule["attributes"]["pattern"]) == ("instruction", 0.5, "ban")
    assert "Dana owns the billing service." in context[1]["text"]
    plans = [p for p in context[1]["plans"] if "migration" in p["content"]]
    assert plans and plans[0]["valid_from"].startswith(f"{plans[0]['valid_from'][:4]}-03-03")


def test_the_same_text_is_stored_once_when_redelivered(api: RunningApi) -> None:
    learn(api, TOLD)
    learn(api, TOLD)
    entities = call(api, "GET", "/api/graph/entities", project=PROJECT)[1]["entities"]
    assert len([e for e in entities if e["content"] == "Dana"]) == 1
    context = call(api, "GET", "/api/graph/context", project=PROJECT, query="who owns the billing service")[1]
    assert len([f for f in context["facts"] if f["content"] == "Dana owns the billing service."]) == 1


def test_a_plan_reads_as_an_event_once_its_date_has_passed(api: RunningApi) -> None:
    learn(api, TOLD)
    container = api.container
    later = datetime.now(UTC) + timedelta(days=400)
    after = GraphRetrieve(container.graph_units, container.embedder, container.llm, None, clock=lambda: later)
    found = after.fast(PROJECT, "When is the Postgres migration planned?")
    assert not found.sections.plans
    assert any("migration" in e.content for e in found.sections.events)
    assert "Events:" in found.text


def test_the_prompt_hooks_search_carries_the_graph_and_queues_the_prompt(api: RunningApi) -> None:
    learn(api, TOLD)
    status, answer = call(
        api,
        "GET",
        "/api/memory/search",
        project=PROJECT,
        project_limit=3,
        global_limit=2,
        mode="hybrid",
        graph="true",
        query="Rohan now leads the Zephyr migration project.",
    )
    assert status == 200
    assert "Entities:" in answer["graph"]["text"] or "Plans:" in answer["graph"]["text"]
    assert deliver_batch(api.container.queues, INGEST, wait_s=5) == 1
    names = {e["content"] for e in call(api, "GET", "/api/graph/entities", project=PROJECT)[1]["entities"]}
    assert "Rohan" in names


def test_a_completed_sessions_summary_feeds_the_graph(api: RunningApi) -> None:
    status, _ = call(api, "POST", "/api/session/complete", {
        "session_id": "s-graph", "project": PROJECT,
        "summary": "We replaced Celery with SQS for the billing service workers."})
    assert status == 200
    assert deliver_batch(api.container.queues, INGEST, wait_s=5) == 1
    context = call(api, "GET", "/api/graph/context", project=PROJECT, query="What replaced Celery?")[1]
    (event,) = [e for e in context["events"] if "Celery" in e["content"]]
    assert (event["source"], event["subtype"]) == ("assistant", "decision")
