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
from pathlib import Path
from typing import Any

import pytest

from agent.api_client import ApiClient
from agent.client_config import ClientConfig
from chalicelib.bootstrap import Container
from chalicelib.services.memory_service import MemoryService
from tests.conftest import RunningApi


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
