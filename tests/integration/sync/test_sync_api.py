"""The sync routes over HTTP: what they accept, what they refuse, and what they answer."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from chalicelib.contracts.sync_envelope import content_hash
from tests.conftest import RunningApi
from tests.support.sync_contract import envelope

P = "github.com/acme/webapp"


def call(api: RunningApi, method: str, path: str, body: Any = None, *, auth: bool = True) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {**(api.headers if auth else {}), "Content-Type": "application/json"}
    request = urllib.request.Request(api.url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wire(path: str, base: int, blob: bytes) -> dict[str, Any]:
    return {"path": path, "base_version": base, "ciphertext": base64.b64encode(blob).decode(),
            "content_hash": content_hash(blob)}


def push(api: RunningApi, *files: dict[str, Any], machine: str = "laptop") -> tuple[int, Any]:
    return call(api, "POST", "/api/sync/push", {"project": P, "machine_id": machine, "files": list(files)})


def test_push_pull_and_files_speak_ciphertext_and_metadata(api: RunningApi) -> None:
    blob = envelope(100)
    status, body = push(api, wire("notes/a.md", 0, blob))
    assert status == 200 and body["files"][0]["version"] == 1

    status, page = call(api, "GET", f"/api/sync/pull?project={P}&since=0")
    assert status == 200 and not page["more"]
    (pulled,) = page["files"]
    assert base64.b64decode(pulled["ciphertext"]) == blob and pulled["content_hash"] == content_hash(blob)

    status, listed = call(api, "GET", f"/api/sync/files?project={P}")
    assert status == 200 and "ciphertext" not in listed["files"][0]
    assert listed["files"][0]["project"] == P and listed["files"][0]["machine_id"] == "laptop"
    status, news = call(api, "GET", f"/api/sync/files?project={P}&since={page['cursor']}")
    assert status == 200 and news == {"files": [], "cursor": page["cursor"], "more": False}


def test_a_stale_push_is_409_naming_the_newer_version(api: RunningApi) -> None:
    push(api, wire(".env", 0, envelope()))
    push(api, wire(".env", 1, envelope()), machine="desktop")

    status, body = push(api, wire(".env", 1, envelope()))

    assert status == 409 and body["error"] == "conflict"
    assert body["conflicts"] == [{"path": ".env", "base_version": 1, "current_version": 2,
                                  "machine_id": "desktop", "updated_at": body["conflicts"][0]["updated_at"]}]


@pytest.mark.parametrize("file,field", [
    ({"path": ".env", "base_version": 0,
      "ciphertext": base64.b64encode(b"TOKEN=plaintext-here" * 5).decode()}, "ciphertext"),
    ({"path": ".env", "base_version": 0, "ciphertext": "not base64!!"}, "ciphertext"),
    ({"path": "../outside", "base_version": 0, "ciphertext": base64.b64encode(envelope()).decode()}, "path"),
    ({"path": ".git/config", "base_version": 0, "ciphertext": base64.b64encode(envelope()).decode()}, "path"),
    ({"path": ".env", "base_version": 0}, "ciphertext"),
    ({"path": ".env", "base_version": -1, "ciphertext": base64.b64encode(envelope()).decode()},
     "files.0.base_version"),
])
def test_plaintext_and_malformed_pushes_are_400_naming_the_field(api: RunningApi, file: dict[str, Any],
                                                                  field: str) -> None:
    status, body = push(api, file)
    assert status == 400 and body["field"] == field, body
    assert call(api, "GET", "/api/sync/files")[1] == {"files": []}


@pytest.mark.parametrize("path", ["/api/sync/pull", "/api/sync/pull?project=p&limit=0",
                                  "/api/sync/pull?project=p&since=-1", "/api/sync/files?since=3"])
def test_bad_queries_are_400(api: RunningApi, path: str) -> None:
    assert call(api, "GET", path)[0] == 400


def test_every_sync_route_needs_the_api_key(api: RunningApi) -> None:
    assert call(api, "GET", f"/api/sync/files?project={P}", auth=False)[0] == 401
    assert call(api, "GET", f"/api/sync/pull?project={P}", auth=False)[0] == 401
    assert call(api, "POST", "/api/sync/push", {"project": P}, auth=False)[0] == 401
