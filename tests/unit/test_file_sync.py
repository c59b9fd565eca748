"""The file sync service over the in-memory store (the same suite runs on Postgres)."""

from __future__ import annotations

import pytest

from chalicelib.sync.services.file_sync import FileSync
from tests.fakes.in_memory_sync import InMemorySyncFiles, InMemorySyncUnitOfWork
from tests.support.sync_contract import FileSyncContract, item


@pytest.fixture
def store() -> InMemorySyncFiles:
    return InMemorySyncFiles()


@pytest.fixture
def sync(store: InMemorySyncFiles) -> FileSync:
    return FileSync(lambda: InMemorySyncUnitOfWork(store))


class TestFileSyncInMemory(FileSyncContract):
    pass


def test_a_push_takes_the_project_lock_and_commits_once(store: InMemorySyncFiles) -> None:
    units: list[InMemorySyncUnitOfWork] = []

    def unit() -> InMemorySyncUnitOfWork:
        units.append(InMemorySyncUnitOfWork(store))
        return units[-1]

    FileSync(unit).push("p", "m", [item(".env", 0), item("CLAUDE.md", 0)])
    assert store.locked == ["p"] and [u.commits for u in units] == [1]
