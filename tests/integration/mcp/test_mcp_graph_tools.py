"""`graph_recall` and `graph_contradictions` through the `mcp` SDK's own client, over `itachi mcp`
(stdio) and the API's `/mcp`: the fast path without an LLM key, the deep path with one (the real
openai SDK against the fake OpenAI server), the graph in real Postgres."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from chalicelib.graph.domain.graph_model import NodeDraft
from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch
from tests.conftest import RunningApi
from tests.fakes.fake_openai import FakeOpenAI
from tests.integration.mcp.mcp_clients import connect, text
from tests.integration.test_ingest_consumer import llm_api  # noqa: F401  (fixture)
from tests.integration.test_learning_loop_api import call

INGEST = next(spec for spec in QUEUES if spec.key == "ingest")
TOLD = "Dana owns the billing service. From now on our team never deploys the billing service on Fridays."


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def seed(api: RunningApi, project: str, node_type: str, content: str, about: list[str]) -> str:
    container = api.container
    with container.graph_units() as uow:
        node = uow.graph.insert_node(
            NodeDraft(project, node_type, content).checked(), container.embedder.embed([content])[0]
        )
        for name in about:
            entity = uow.graph.upsert_entity(project, name, "person", container.embedder.embed([name])[0])
            uow.graph.add_edge(node.id, entity.id, "about")
        uow.commit()
    return node.id


def listed_contradiction(api: RunningApi, project: str) -> tuple[str, str, str]:
    old = seed(api, project, "instruction", "Always run the full test suite before merging", [])
    new = seed(api, project, "instruction", "Never run the full test suite before merging", [])
    with api.container.graph_units() as uow:
        ident = uow.graph.add_contradiction(project, new, old, "full test suite: always versus never")
        uow.commit()
    return str(ident), old, new


def run_tools(
    transport: str, api: RunningApi, workdir: Path, project: str, calls: list[tuple[str, dict[str, Any]]]
) -> list[tuple[bool, str]]:
    answers: list[tuple[bool, str]] = []

    async def scenario() -> None:
        async with connect(transport, api, workdir, project) as client:
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                answers.append((bool(result.is_error), text(result)))

    anyio.run(scenario)
    return answers


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_without_a_key_graph_recall_answers_from_the_fast_path_and_contradictions_are_listed(
    api: RunningApi, tmp_path: Path, transport: str
) -> None:
    project = f"graph-mcp-{transport}"
    assert call(api, "POST", "/api/graph/ingest", {"project": project, "text": TOLD})[0] == 202
    assert deliver_batch(api.container.queues, INGEST, wait_s=5) == 1
    ident, old, new = listed_contradiction(api, project)

    (recall, fast, contradictions, resolved, empty, bad) = run_tools(
        transport,
        api,
        tmp_path,
        project,
        [
            ("graph_recall", {"query": "Who owns the billing service, and can we deploy it on Friday?"}),
            ("graph_recall", {"query": "billing service", "deep": False}),
            ("graph_contradictions", {}),
            ("graph_contradictions", {"status": "keep_new"}),
            ("graph_contradictions", {"project": "graph-mcp-nothing"}),
            ("graph_recall", {"query": "", "limit": 3}),
        ],
    )

    assert not recall[0] and "fast path (the server has no LLM key)" in recall[1]
    assert "Dana owns the billing service." in recall[1]
    assert "never deploys the billing service on Fridays" in recall[1]
    assert not fast[0] and fast[1].startswith(f"Graph memory of {project} for 'billing service' (fast path)")
    assert not contradictions[0] and f"contradiction {ident}" in contradictions[1]
    assert f"id {old}" in contradictions[1] and f"id {new}" in contradictions[1]
    assert "always versus never" in contradictions[1]
    assert resolved == (False, f"No keep new contradictions in {project}.")
    assert empty == (False, "No open contradictions in graph-mcp-nothing.")
    assert bad[0] and "invalid arguments for graph_recall" in bad[1] and "limit" in bad[1]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_with_a_key_graph_recall_runs_the_deep_path_and_returns_the_curated_records(
    llm_api: RunningApi,  # noqa: F811
    fake: FakeOpenAI,
    tmp_path: Path,
    transport: str,
) -> None:
    project = f"graph-deep-{transport}"
    fact = "Peter handles the Anderson account"
    seed(llm_api, project, "fact", fact, ["Peter"])
    fake.script_chat(json.dumps({"complexity": "ENTITY_LOOKUP", "steps": ["search_entity Peter"]}))
    fake.script_chat_tool_calls(("search_entity", {"name": "Peter"}))
    fake.script_chat_tool_calls(("done", {}))
    for _ in range(3):  # one curation per section, in parallel: each copies the fact verbatim
        fake.script_chat(f"- {fact}")

    ((failed, answer),) = run_tools(
        transport,
        llm_api,
        tmp_path,
        project,
        [
            ("graph_recall", {"query": "Who handles the Anderson account?"}),
        ],
    )

    assert not failed and answer.startswith(
        f"Graph memory of {project} for 'Who handles the Anderson account?' (deep recall; trace "
    )
    assert f"- {fact}" in answer
    trace_id = answer.split("trace ", 1)[1].split(")", 1)[0]
    trace = call(llm_api, "GET", f"/api/graph/traces/{trace_id}")[1]["trace"]
    assert [c["tool"] for c in trace["calls"]] == ["search_entity", "done"]
    assert trace["plan"]["complexity"] == "ENTITY_LOOKUP"
