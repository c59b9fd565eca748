"""Two machines that share a sync passphrase, both talking to the test API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunningApi
from tests.support.sync_machines import Machine, make_machine, share_key


@pytest.fixture
def machines(tmp_path: Path, api: RunningApi) -> Iterator[tuple[Machine, Machine]]:
    a = make_machine(tmp_path, "laptop", api.url, api.key)
    b = make_machine(tmp_path, "desktop", api.url, api.key)
    share_key(a, b)
    yield a, b
