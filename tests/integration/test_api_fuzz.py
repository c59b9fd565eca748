"""Every route, fed generated hostile requests against real Postgres and SQS: never a 5xx.

A bounded number of examples per route runs here; `bench/api_fuzz.py` runs the long version.
The only 5xx the API may answer is a 503 `unavailable` (documented, with Retry-After).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chalicelib.bootstrap import set_container
from tests.conftest import RunningApi
from tests.support.api_fuzz import ROUTES, FuzzClient, Seeds, request_for
from tests.support.local_stack import TestPostgres, make_container, settings_for_test

EXAMPLES_PER_ROUTE = 25


def _post(api: RunningApi, path: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(api.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={**api.headers, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as resp:
        return json.loads(resp.read())


@pytest.fixture(scope="module")
def shared_api(postgres: TestPostgres, moto_endpoint: str,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApi]:
    """One API and database for every route: the fuzzing is what takes time, not the setup."""
    from app import app as chalice_app
    from infra.local.api_server import ApiServer

    home = tmp_path_factory.mktemp("fuzz-home")
    container = make_container(settings_for_test(home, postgres.new_database(), moto_endpoint))
    set_container(container)
    server = ApiServer(chalice_app, port=0, max_body_bytes=container.settings.max_body_bytes)
    server.start()
    yield RunningApi(server.url, container.settings.api_keys[0], container)
    server.stop()
    set_container(None)
    container.close()


@pytest.fixture(scope="module")
def seeds(shared_api: RunningApi) -> Seeds:
    return seed(shared_api)


def seed(api: RunningApi) -> Seeds:
    memory = _post(api, "/api/memory", {"project": "fuzz", "content": "the fuzz seed memory"})
    task = _post(api, "/api/tasks", {"project": "fuzz", "description": "a seeded task"})
    _post(api, "/api/machines/heartbeat", {"machine_id": "fuzz-box", "agent_instance": "a1"})
    session = _post(api, "/api/sessions", {"prompt": "hello", "project": "fuzz"})
    return Seeds({"memory_id": [memory["id"]], "task_id": [task["id"], task["id"][:8]],
                  "session_id": [session["id"]], "lesson_id": [memory["id"]]})


def test_every_route_of_the_app_has_a_fuzz_entry() -> None:
    from app import app

    served = {(method, path) for path, methods in app.routes.items() for method in methods}
    assert served == set(ROUTES)


@pytest.mark.parametrize("route", sorted(ROUTES), ids=lambda r: f"{r[0]} {r[1]}")
def test_generated_requests_never_get_a_server_error(shared_api: RunningApi, seeds: Seeds,
                                                     route: tuple[str, str]) -> None:
    url = urlparse(shared_api.url)
    client = FuzzClient(url.hostname or "127.0.0.1", url.port or 80, shared_api.headers)

    @settings(max_examples=EXAMPLES_PER_ROUTE, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(request=st.data())
    def run(request: st.DataObject) -> None:
        method, target, body = request.draw(request_for(route[0], route[1], seeds))
        status = client.send(method, target, body)
        assert status < 500 or status == 503, client.server_errors[-1:]

    run()
    assert sum(client.statuses.values()) >= 1
    assert client.server_errors == []
