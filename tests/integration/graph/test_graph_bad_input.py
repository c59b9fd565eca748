"""Bad input to the graph API: unknown ids, self-edges, supersede cycles and huge texts are clear
4xx answers, and nothing is half-written."""

from __future__ import annotations

import uuid

from tests.conftest import RunningApi
from tests.integration.test_learning_loop_api import call

PROJECT = "billing"


def node_ids(api: RunningApi) -> list[str]:
    container = api.container
    store = container.graph_store
    store.run({"project": PROJECT, "text": "Dana owns the billing service. Omar owns the search service."})
    entities = call(api, "GET", "/api/graph/entities", project=PROJECT)[1]["entities"]
    return [e["id"] for e in entities]


def counts(api: RunningApi) -> dict[str, int]:
    return api.container.graph_admin.counts(PROJECT)


def test_unknown_node_ids_are_404_and_malformed_ones_400(api: RunningApi) -> None:
    node_ids(api)
    unknown = str(uuid.uuid4())
    assert call(api, "GET", f"/api/graph/entities/{unknown}")[0] == 404
    assert call(api, "GET", "/api/graph/entities/not-a-uuid")[0] == 400
    status, body = call(
        api, "POST", "/api/graph/supersede", {"project": PROJECT, "old_id": unknown, "new_content": "x"}
    )
    assert status == 404 and unknown in body["message"]
    assert (
        call(api, "POST", f"/api/graph/contradictions/{unknown}/resolve", {"resolution": "keep_new"})[0]
        == 404
    )
    assert call(api, "GET", f"/api/graph/traces/{unknown}")[0] == 404


def test_a_self_edge_is_refused_and_an_edge_to_an_unknown_node_writes_nothing(api: RunningApi) -> None:
    first, second, *_ = node_ids(api)
    before = counts(api)
    status, body = call(
        api,
        "POST",
        "/api/graph/edges",
        {"project": PROJECT, "source_id": first, "target_id": first, "type": "about"},
    )
    assert status == 400 and "itself" in body["message"]
    assert (
        call(
            api,
            "POST",
            "/api/graph/edges",
            {"project": PROJECT, "source_id": first, "target_id": str(uuid.uuid4()), "type": "about"},
        )[0]
        == 404
    )
    assert counts(api) == before
    created = call(
        api,
        "POST",
        "/api/graph/edges",
        {"project": PROJECT, "source_id": first, "target_id": second, "type": "works with"},
    )
    assert created == (201, {"source_id": first, "target_id": second, "type": "works_with", "created": True})


def test_supersede_chains_never_loop(api: RunningApi) -> None:
    first, second, *_ = node_ids(api)
    assert (
        call(api, "POST", "/api/graph/supersede", {"project": PROJECT, "old_id": first, "new_id": first})[0]
        == 409
    )
    assert (
        call(api, "POST", "/api/graph/supersede", {"project": PROJECT, "old_id": first, "new_id": second})[0]
        == 201
    )
    status, body = call(
        api, "POST", "/api/graph/supersede", {"project": PROJECT, "old_id": second, "new_id": first}
    )
    assert status == 409 and "superseded" in body["message"]
    assert (
        call(
            api, "POST", "/api/graph/supersede", {"project": PROJECT, "old_id": first, "new_content": "again"}
        )[0]
        == 409
    )
    assert call(api, "POST", "/api/graph/supersede", {"project": PROJECT, "old_id": first})[0] == 400


def test_a_one_megabyte_prompt_is_refused_whole(api: RunningApi) -> None:
    node_ids(api)
    before = counts(api)
    huge = "Zed owns the huge service. " * 40_000
    status, _ = call(api, "POST", "/api/graph/ingest", {"project": PROJECT, "text": huge})
    assert status in (400, 413)
    assert call(api, "GET", "/api/graph/context", project=PROJECT, query=huge[:5_000])[0] == 400
    assert counts(api) == before
