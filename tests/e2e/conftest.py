"""Fixtures of the end-to-end tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def up_root() -> Iterator[Path]:
    """A scratch folder for an `itachi up` home, outside pytest's temp tree.

    The embedded Postgres runs as another user when the tests run as root, and every pytest
    session that starts meanwhile resets its temp tree to mode 0700, locking that user out.
    """
    path = Path(tempfile.mkdtemp(prefix="itachi-e2e-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)
