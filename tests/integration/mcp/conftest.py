"""MCP fixtures: the real API (tests/conftest.py) with its embedding model loaded up front, so
the first tool call does not pay for it within a client's timeout."""

from __future__ import annotations

import pytest

from tests.conftest import RunningApi


@pytest.fixture
def api(api: RunningApi) -> RunningApi:
    api.container.embedder.embed(["warm up"])
    return api
