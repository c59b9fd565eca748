"""The foundation's HTTP contract: health, auth, 404, 413, bad JSON."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from tests.conftest import RunningApi


def call(api: RunningApi, method: str, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, Any]:
    req = urllib.request.Request(api.url + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def test_health_is_open_and_reports_database_and_queues(api: RunningApi) -> None:
    status, body = call(api, "GET", "/health")
    assert status == 200
    assert body["database"]["status"] == "up"
    assert body["queues"]["status"] == "up"


def test_api_route_without_key_is_401_with_json_error(api: RunningApi) -> None:
    status, body = call(api, "GET", "/api/status")
    assert status == 401
    assert body["error"] == "unauthorized"


def test_api_route_with_wrong_key_is_401(api: RunningApi) -> None:
    status, body = call(api, "GET", "/api/status", headers={"Authorization": "Bearer nope"})
    assert status == 401
    status, body = call(api, "GET", "/api/status", headers=api.headers)
    assert status == 200
    assert body["embedding"]["dimension"] == 384


def test_unknown_route_is_404_not_403(api: RunningApi) -> None:
    status, body = call(api, "GET", "/no/such/route", headers=api.headers)
    assert status == 404
    assert body["error"] == "not_found"


def test_oversized_body_is_413(api: RunningApi) -> None:
    big = b"x" * (api.container.settings.max_body_bytes + 1)
    status, body = call(api, "POST", "/health", big, api.headers)
    assert status == 413
    assert body["error"] == "payload_too_large"
