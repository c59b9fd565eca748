"""The store pipeline with a model: the real openai SDK against the fake OpenAI server, which
scripts the classification, the storage filter, each turn of the store tool loop and the
reconciliation verdicts; the graph is real Postgres."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.bootstrap import Container, set_container
from chalicelib.graph.domain.graph_model import NodeDraft
from tests.fakes.fake_openai import CHAT_PATH, FakeOpenAI
from tests.integration.test_ingest_consumer import llm_container

PROJECT = "agency"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def graph(tmp_path: Path, database_url: str, moto_endpoint: str, fake: FakeOpenAI) -> Iterator[Container]:
    container = llm_container(tmp_path, database_url, moto_endpoint, fake)
    set_container(container)
    yield container
    set_container(None)
    container.close()


def seed(container: Container, node_type: str, content: str, about: list[str]) -> str:
    """A node (with its vector) linked to entities by name, written straight into the graph."""
    vector = container.embedder.embed([content])[0]
    with container.graph_units() as uow:
        node = uow.graph.insert_node(NodeDraft(PROJECT, node_type, content).checked(), vector)
        for name in about:
            entity = uow.graph.upsert_entity(PROJECT, name, "person", container.embedder.embed([name])[0])
            uow.graph.add_edge(node.id, entity.id, "about")
        uow.commit()
    return node.id


def script_start(fake: FakeOpenAI, items: list[dict[str, Any]], instructions: list[dict[str, Any]]) -> None:
    fake.script_chat(
        json.dumps(
            {
                "entities": [],
                "facts": [],
                "events": [],
                "plans": [],
                "opinions": [],
                "intents": ["correction"],
                "retrieve": True,
                "store": True,
            }
        )
    )
    fake.script_chat(json.dumps({"items": items, "instructions": instructions}))


def usage(container: Container) -> dict[str, int]:
    with container.llm_units() as uow:
        return {row["purpose"]: int(row["calls"]) for row in uow.usage.by_day_and_purpose(1)}


def test_a_correction_supersedes_the_old_fact_and_copies_its_edges(
    graph: Container, fake: FakeOpenAI
) -> None:
    old = seed(graph, "fact", "Peter handles the Anderson account", ["Peter", "Anderson account"])
    new_text = "Lisa handles the Anderson account"
    script_start(
        fake,
        [
            {
                "type": "fact",
                "subtype": None,
                "content": new_text,
                "valid_from": None,
                "entities": ["Lisa", "Anderson account"],
            }
        ],
        [],
    )
    fake.script_chat_tool_calls(("search_facts", {"query": "who handles the Anderson account"}))
    fake.script_chat_tool_calls(("supersede_memory", {"old_id": old, "new_content": new_text}))
    fake.script_chat_tool_calls(("done", {"stored_count": 1}))

    result = graph.graph_store.run(
        {"project": PROJECT, "text": "Actually, Lisa handles the Anderson account now."}
    )

    (new,) = result["stored"]
    profile = graph.graph_admin.profile(old)
    assert (profile["superseded_by"], profile["valid_until"] is not None) == (new, True)
    copied = graph.graph_admin.profile(new)["relationships"]
    assert {r["node"]["content"] for r in copied} == {"Peter", "Anderson account"}
    context = graph.graph_retrieve.fast(PROJECT, "Who handles the Anderson account?")
    assert new_text in context.text and "Peter handles" not in context.text
    trace = graph.graph_admin.trace(result["trace_id"])["trace"]
    assert [c["tool"] for c in trace["calls"]] == ["search_facts", "supersede_memory", "done"]
    assert trace["calls"][0]["result"]["results"][0]["id"] == old
    assert "sk-test" not in json.dumps(trace)
    tool_requests = [r for r in fake.requests_to(CHAT_PATH) if "tools" in r]
    assert len(tool_requests) == 3 and tool_requests[-1]["messages"][-1]["role"] == "tool"
    assert usage(graph) == {"graph_classify": 1, "graph_filter": 1, "graph_store": 3}


def test_a_conflicting_instruction_without_a_replacement_is_listed_not_resolved(
    graph: Container, fake: FakeOpenAI
) -> None:
    old = seed(graph, "instruction", "Always deploy the billing service on Fridays", ["billing service"])
    rule = "Never deploy the billing service on Fridays"
    script_start(
        fake, [], [{"content": rule, "pattern": "ban", "scope": 0.5, "entities": ["billing service"]}]
    )
    fake.script_chat_tool_calls(("store_memory", {"type": "instruction", "content": rule, "scope": 0.5}))
    fake.script_chat_tool_calls(("done", {"stored_count": 1}))
    fake.script_chat(
        json.dumps(
            {
                "verdicts": [
                    {"old_id": old, "verdict": "CONTRADICTION", "reason": "Fridays: always versus never"}
                ]
            }
        )
    )

    result = graph.graph_store.run(
        {"project": PROJECT, "text": "Never deploy the billing service on Fridays."}
    )

    (listed,) = graph.graph_admin.contradictions(PROJECT)
    assert (listed["old"]["id"], listed["new"]["id"], listed["id"]) == (
        old,
        result["stored"][0],
        result["contradictions"][0],
    )
    assert listed["old"]["superseded_by"] is None and listed["new"]["superseded_by"] is None
    context = graph.graph_retrieve.fast(PROJECT, "Can we deploy the billing service on Fridays?")
    assert {i.id for i in context.sections.instructions} >= {old, result["stored"][0]}
    graph.graph_admin.resolve(listed["id"], "keep_new")
    assert graph.graph_admin.profile(old)["superseded_by"] == result["stored"][0]
    assert graph.graph_admin.contradictions(PROJECT) == []


def test_force_store_runs_when_the_loop_stores_nothing(graph: Container, fake: FakeOpenAI) -> None:
    fact = "The staging cluster runs on k3s"
    script_start(
        fake,
        [
            {
                "type": "fact",
                "subtype": None,
                "content": fact,
                "valid_from": None,
                "entities": ["staging cluster"],
            }
        ],
        [],
    )
    fake.script_chat_tool_calls(("done", {"stored_count": 0}))

    result = graph.graph_store.run({"project": PROJECT, "text": "FYI the staging cluster runs on k3s."})

    trace = graph.graph_admin.trace(result["trace_id"])["trace"]
    assert trace["force_store"] is True and len(result["stored"]) == 1
    (entity,) = graph.graph_admin.entities(PROJECT, 10)
    assert entity.content == "staging cluster"
    assert fact in graph.graph_retrieve.fast(PROJECT, "What does the staging cluster run on?").text


def test_an_unusable_model_falls_back_to_the_heuristic(graph: Container, fake: FakeOpenAI) -> None:
    fake.script_chat("not json")
    result = graph.graph_store.run(
        {"project": PROJECT, "text": "From now on Dana reviews every billing change."}
    )
    assert result["pipeline"] == "heuristic"
    assert [n["type"] for n in result["written"]["nodes"]] == ["instruction"]


def test_deep_retrieval_plans_searches_and_keeps_only_curated_sections(
    graph: Container, fake: FakeOpenAI
) -> None:
    fact = seed(graph, "fact", "Peter handles the Anderson account", ["Peter"])
    seed(graph, "event", "The office moved to Lisbon last spring", [])
    fake.script_chat(json.dumps({"complexity": "ENTITY_LOOKUP", "steps": ["search_entity Peter"]}))
    fake.script_chat_tool_calls(("search_entity", {"name": "Peter"}))
    fake.script_chat_tool_calls(("search_facts", {"query": "Anderson account", "entity_id": ""}))
    fake.script_chat_tool_calls(("done", {}))
    for _ in range(3):  # one curation per section (entities, facts, events), in parallel
        fake.script_chat("NO_RELEVANT_RECORDS")

    found = graph.graph_retrieve.deep(PROJECT, "Who handles the Anderson account?")

    assert found.deep and fact in {n.id for n in found.sections.facts}
    assert found.text == ""  # every section was judged irrelevant, so none is shown
    trace = graph.graph_admin.trace(str(found.trace_id))["trace"]
    assert trace["plan"]["complexity"] == "ENTITY_LOOKUP"
    assert [c["tool"] for c in trace["calls"]] == ["search_entity", "search_facts", "done"]
    assert set(trace["curation"]) == {"Entities", "Facts", "Events"}
    assert usage(graph) == {"graph_plan": 1, "graph_retrieve": 3, "graph_curate": 3}


def test_an_unusable_reconciliation_answer_falls_back_to_the_wording(
    graph: Container, fake: FakeOpenAI
) -> None:
    old = seed(graph, "instruction", "Always deploy the billing service on Fridays", ["billing service"])
    rule = "Never deploy the billing service on Fridays"
    script_start(fake, [], [{"content": rule, "pattern": "ban", "scope": 0.5, "entities": []}])
    fake.script_chat_tool_calls(("store_memory", {"type": "instruction", "content": rule, "scope": 0.5}))
    fake.script_chat_tool_calls(("done", {"stored_count": 1}))
    fake.script_chat("not json")  # the reconciliation answer

    result = graph.graph_store.run(
        {"project": PROJECT, "text": "Never deploy the billing service on Fridays!"}
    )

    (listed,) = graph.graph_admin.contradictions(PROJECT)
    assert (listed["old"]["id"], listed["new"]["id"]) == (old, result["stored"][0])
    trace = graph.graph_admin.trace(result["trace_id"])["trace"]
    assert [(r["verdict"], r["by"]) for r in trace["reconciliation"]] == [("CONTRADICTION", "heuristic")]
    assert usage(graph)["graph_reconcile"] == 1
