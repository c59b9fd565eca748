"""Entity aliases: the store pipeline records the other names an entity goes by (a first name,
an acronym in parentheses, "aka", hyphen and underscore spellings), and entity lookup (the
store and retrieve tools' search_entity, the fast path's entity match) finds the entity by any
of them. Real Postgres; the heuristic through the ingest queue on moto; the model's path with
the real openai SDK against the fake OpenAI server."""

from __future__ import annotations

import json

from chalicelib.bootstrap import Container
from chalicelib.graph.services.graph_tools import GraphTools
from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch
from tests.conftest import RunningApi
from tests.fakes.fake_openai import FakeOpenAI
from tests.integration.graph.test_graph_store_loop import PROJECT, fake, graph, script_start  # noqa: F401
from tests.integration.test_learning_loop_api import call

INGEST = next(spec for spec in QUEUES if spec.key == "ingest")
TOLD = (
    "Dana Smith owns the billing-service. Site Reliability Engineering (SRE) runs the on-call rota. "
    "Buildkite (aka BK) runs the nightly deploys."
)


def learn(api: RunningApi, project: str, text: str) -> None:
    status, body = call(api, "POST", "/api/graph/ingest", {"project": project, "text": text})
    assert status == 202, body
    assert deliver_batch(api.container.queues, INGEST, wait_s=5) == 1


def entities(api: RunningApi, project: str) -> dict[str, dict[str, object]]:
    found = call(api, "GET", "/api/graph/entities", project=project)[1]["entities"]
    return {e["content"]: e for e in found}


def search_entity(container: Container, project: str, name: str) -> dict[str, object]:
    tools = GraphTools(container.graph_units, container.embedder, project)
    return tools.call("search_entity", {"name": name})


def test_the_heuristic_records_aliases_and_later_mentions_land_on_the_same_entity(api: RunningApi) -> None:
    learn(api, "aliases", TOLD)
    learn(api, "aliases", "Dana reviews every billing service change.")

    named = entities(api, "aliases")
    assert set(named) == {"Dana Smith", "billing-service", "Site Reliability Engineering", "Buildkite"}
    aliases = {name: set(e["attributes"]["aliases"]) for name, e in named.items()}  # type: ignore[index]
    assert "dana" in aliases["Dana Smith"]
    assert {"billing service", "billing_service"} <= aliases["billing-service"]
    assert "sre" in aliases["Site Reliability Engineering"] and "bk" in aliases["Buildkite"]
    dana = call(api, "GET", f"/api/graph/entities/{named['Dana Smith']['id']}")[1]
    linked = {(r["type"], r["node"]["content"]) for r in dana["relationships"]}
    assert ("owns", "billing-service") in linked
    assert ("about", "Dana reviews every billing service change.") in linked

    sre = call(api, "GET", "/api/graph/context", project="aliases", query="Who is on the SRE rota?")[1]
    assert [e["content"] for e in sre["entities"]] == ["Site Reliability Engineering"]
    bk = call(api, "GET", "/api/graph/context", project="aliases", query="When does BK deploy?")[1]
    assert "Buildkite" in [e["content"] for e in bk["entities"]]
    assert "Buildkite (aka BK) runs the nightly deploys." in bk["text"]
    for name, expected in (("Dana", "Dana Smith"), ("billing_service", "billing-service"),
                           ("billing service", "billing-service"), ("SRE", "Site Reliability Engineering")):
        assert search_entity(api.container, "aliases", name)["name"] == expected


def test_the_models_store_loop_and_classification_record_aliases(graph: Container, fake: FakeOpenAI) -> None:  # noqa: F811
    fact = "Site Reliability Engineering runs the on-call rota"
    fake.script_chat(json.dumps({
        "entities": [{"name": "Site Reliability Engineering", "type": "org", "aliases": ["SRE"]},
                     {"name": "Dana Smith", "type": "person", "aliases": []}],
        "facts": [fact], "events": [], "plans": [], "opinions": [], "intents": ["inform"],
        "retrieve": False, "store": True}))
    item = {"type": "fact", "subtype": None, "content": fact, "valid_from": None,
            "entities": ["Site Reliability Engineering"]}
    fake.script_chat(json.dumps({"items": [item], "instructions": []}))
    fake.script_chat_tool_calls(("search_entity", {"name": "Dana"}))
    fake.script_chat_tool_calls(("store_memory", {"type": "entity", "content": "Dana Smith",
                                                  "subtype": "person", "aliases": ["Dana", "D. Smith"]}))
    fake.script_chat_tool_calls(("store_memory", {"type": "fact", "content": fact}))
    fake.script_chat_tool_calls(("done", {"stored_count": 2}))

    result = graph.graph_store.run({"project": PROJECT, "text": "Site Reliability Engineering (SRE), with "
                                    "Dana Smith, runs the on-call rota."})

    trace = graph.graph_admin.trace(result["trace_id"])["trace"]
    assert trace["calls"][0]["result"] == {"found": False, "name": "Dana"}
    assert set(trace["calls"][1]["result"]["aliases"]) == {"dana", "d. smith"}
    assert list(trace["aliases"].values()) == [["sre"]]
    dana = search_entity(graph, PROJECT, "Dana")
    assert (dana["found"], dana["name"]) == (True, "Dana Smith")
    assert search_entity(graph, PROJECT, "SRE")["name"] == "Site Reliability Engineering"
    found = graph.graph_retrieve.fast(PROJECT, "Does Dana know who is on the SRE rota?")
    assert {e.content for e in found.sections.entities} == {"Dana Smith", "Site Reliability Engineering"}
    names = [e.content for e in graph.graph_admin.entities(PROJECT, 10)]
    assert sorted(names) == ["Dana Smith", "Site Reliability Engineering"]
