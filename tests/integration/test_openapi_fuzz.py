"""Schemathesis against the running API from its own /openapi.json, with the key: no server
error, no response that breaks the spec. A few examples per operation here; bench/openapi_fuzz.py
runs many more."""

from __future__ import annotations

from pathlib import Path

from app import app
from chalicelib.contracts.api_transport import ApiClient
from chalicelib.contracts.local_home import ClientConfig
from tests.conftest import RunningApi
from tests.support.schema_fuzz import fuzz

EXAMPLES_PER_OPERATION = 5



def test_generated_requests_get_no_server_error_and_answers_that_match_the_spec(api: RunningApi,
                                                                                tmp_path: Path) -> None:
    client = ApiClient(ClientConfig(home=tmp_path, api_url=api.url, api_key=api.key))
    client.post("/api/machines/heartbeat", {"machine_id": "fuzz-box", "agent_instance": "fuzz"})
    report = fuzz(api.url, api.key, max_examples=EXAMPLES_PER_OPERATION)
    routes = {(method, path) for path, methods in app.routes.items() for method in methods}
    routes.discard(("GET", "/openapi.json"))  # the schema's own URL: Schemathesis leaves it out
    assert report.covered == routes, f"not exercised: {routes - report.covered}"
    assert report.examples >= len(routes)
    assert not report.failures, report.summary() + "\n\n" + "\n\n".join(report.failures)
