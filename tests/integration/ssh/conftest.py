"""A real sshd per test (its own host key, on a free port); `make test` installs sshd beforehand."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.sshd import Sshd, ensure_sshd


@pytest.fixture(scope="session")
def sshd_binary() -> str:
    return ensure_sshd()


@pytest.fixture
def sshd(sshd_binary: str, tmp_path: Path) -> Iterator[Sshd]:
    server = Sshd(sshd_binary, tmp_path / "sshd").start()
    yield server
    server.stop()
