"""The app's edges through Chalice's test client: auth, validation shape, body limit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chalice.test import Client

from app import app
from chalicelib.bootstrap import Container, build, set_container
from chalicelib.kernel.settings import Settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    # No database needed: every request here is answered before any service runs.
    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path)}).replace(
        api_keys=("k1", "k2"), max_body_bytes=1000)
    container: Container = build(settings)
    set_container(container)
    with Client(app) as c:
        yield c
    set_container(None)


def test_missing_key_is_401_with_a_json_message(client: Client) -> None:
    resp = client.http.get("/api/status")
    assert resp.status_code == 401
    assert json.loads(resp.body)["error"] == "unauthorized"


def test_a_non_bearer_scheme_is_rejected(client: Client) -> None:
    resp = client.http.get("/api/status", headers={"Authorization": "Basic k1"})
    assert resp.status_code == 401


def test_any_configured_key_is_accepted_before_the_route_runs(client: Client) -> None:
    # The route itself then fails to reach a database and reports it, but auth passed.
    resp = client.http.get("/api/status", headers={"Authorization": "Bearer k2"})
    assert resp.status_code != 401


def test_body_over_the_limit_is_413(client: Client) -> None:
    resp = client.http.post("/api/status", body=b"x" * 1001, headers={"Authorization": "Bearer k1"})
    assert resp.status_code == 413
