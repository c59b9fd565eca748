"""Memory-core fixtures: the real container and API from tests/conftest.py, plus an API client.

The local embedding model is loaded once per test process (it is cached process-wide), so
only the first test that embeds pays for it.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from chalicelib.bootstrap import Container, set_container
from chalicelib.contracts.api_transport import ApiClient
from chalicelib.contracts.local_home import ClientConfig
from chalicelib.memory.services.memory_service import MemoryService
from chalicelib.memory.services.ports import Embedder
from tests.conftest import RunningApi
from tests.support.local_stack import make_container, settings_for_test


@pytest.fixture
def memory(container: Container) -> Iterator[MemoryService]:
    yield container.memory


@pytest.fixture
def client(api: RunningApi, tmp_path: Path) -> ApiClient:
    return ApiClient(ClientConfig(home=tmp_path, api_url=api.url, api_key=api.key))


def call(api: RunningApi, method: str, path: str, body: Any = None, raw: bytes | None = None,
         **query: Any) -> tuple[int, Any]:
    """One HTTP request with the API key; (status, decoded JSON body)."""
    suffix = f"?{urllib.parse.urlencode(query)}" if query else ""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(api.url + path + suffix, data=data, method=method,
                                     headers={**api.headers, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


@contextmanager
def serving(container: Container) -> Iterator[RunningApi]:
    """Serve the app over HTTP backed by `container` (for containers built by the test itself)."""
    from app import app as chalice_app
    from infra.local.api_server import ApiServer

    set_container(container)
    server = ApiServer(chalice_app, port=0, max_body_bytes=container.settings.max_body_bytes)
    server.start()
    try:
        yield RunningApi(server.url, container.settings.api_keys[0], container)
    finally:
        server.stop()
        set_container(None)


def container_with(tmp_path: Path, database_url: str, embedder: Embedder, **settings: Any) -> Container:
    """A container on `database_url` whose embedder is `embedder` (set before the service is built)."""
    built = make_container(settings_for_test(tmp_path / "home", database_url, None, **settings),
                           with_queues=False)
    built.embedder = embedder  # the composition root's slot for it, filled before first use
    return built
