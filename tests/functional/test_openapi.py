"""GET /openapi.json: built from the routes and the pydantic models they validate with, and the
route index of docs/api.md is the same table, row for row."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chalice.test import Client

from app import app
from chalicelib.bootstrap import build, set_container
from chalicelib.kernel.openapi import build_spec, markdown_route_rows, route_table, view_facts
from chalicelib.kernel.settings import Settings
from chalicelib.memory.schemas import MemoryIn, SearchQuery
from tests.conftest import REPO_ROOT


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    set_container(build(Settings.from_env({"ITACHI_HOME": str(tmp_path)}).replace(api_keys=("k1",))))
    with Client(app) as c:
        yield c
    set_container(None)


def test_the_spec_needs_the_key_and_lists_every_route_of_the_app(client: Client) -> None:
    assert client.http.get("/openapi.json").status_code == 401
    spec = json.loads(client.http.get("/openapi.json", headers={"Authorization": "Bearer k1"}).body)
    listed = {(method.upper(), path) for path, ops in spec["paths"].items() for method in ops}
    routed = {(method, path) for path, methods in app.routes.items() for method in methods}
    assert listed == routed
    assert spec["openapi"].startswith("3.1") and spec["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http", "scheme": "bearer"}


def test_bodies_and_queries_are_the_models_the_views_validate_with() -> None:
    spec = build_spec(app.routes)
    remember = spec["paths"]["/api/memory"]["post"]
    schema = spec["components"]["schemas"]["memory.MemoryIn"]
    assert remember["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/memory.MemoryIn"}
    assert schema["properties"]["content"] == MemoryIn.model_json_schema()["properties"]["content"]
    assert "201" in remember["responses"] and "400" in remember["responses"]
    search = {p["name"]: p for p in spec["paths"]["/api/memory/search"]["get"]["parameters"]}
    assert set(search) == set(SearchQuery.model_fields)
    assert search["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
    assert search["query"]["required"] and not search["mode"]["required"]
    assert spec["paths"]["/health"]["get"]["security"] == []


def test_every_view_that_parses_input_is_seen_by_the_spec() -> None:
    import inspect

    for path, methods in app.routes.items():
        for method, entry in methods.items():
            source = inspect.getsource(inspect.unwrap(entry.view_function))
            facts = view_facts(entry.view_function)
            assert ("parse_body(" in source) == (facts.body is not None), (method, path)
            assert ("parse_query(" in source) == (facts.query is not None), (method, path)


def test_docs_api_md_route_index_matches_the_spec() -> None:
    expected = route_table(build_spec(app.routes))
    documented = markdown_route_rows((REPO_ROOT / "docs" / "api.md").read_text())
    assert documented == expected, "docs/api.md's route index is stale; the current one is:\n" + "\n".join(
        expected)
