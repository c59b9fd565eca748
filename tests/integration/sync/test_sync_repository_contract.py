"""The file sync service's contract suite on real Postgres (the same suite runs in memory)."""

from __future__ import annotations

import pytest

from chalicelib.kernel.database import Database
from chalicelib.sync.adapters.sync_file_repository import sync_units
from chalicelib.sync.services.file_sync import FileSync
from tests.support.sync_contract import FileSyncContract


@pytest.fixture
def sync(database_url: str):  # type: ignore[no-untyped-def]
    db = Database(database_url, min_size=1, max_size=4)
    yield FileSync(sync_units(db))
    db.close()


class TestFileSyncOnPostgres(FileSyncContract):
    pass
