"""What the sync service needs from storage: one repository, inside a unit of work."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from chalicelib.kernel.unit_of_work import UnitOfWork
from chalicelib.sync.domain.sync_model import FileVersion, PushItem


class SyncFileRepository(Protocol):
    def lock_project(self, project: str) -> None:
        """Serialise pushes to one project until the transaction ends (cursors never skip a row)."""
        ...

    def latest(self, project: str, paths: Sequence[str]) -> dict[str, FileVersion]:
        """The newest version of each of `paths` that has one (metadata only)."""
        ...

    def insert(self, project: str, machine_id: str, item: PushItem) -> FileVersion:
        """Store `item` as version base_version + 1 (the caller checked the base)."""
        ...

    def prune(self, project: str, path: str, keep_from_version: int) -> None:
        """Delete the versions of a path older than `keep_from_version`."""
        ...

    def changed_since(self, project: str, since: int, limit: int, *,
                      with_ciphertext: bool) -> list[FileVersion]:
        """The newest version of each path whose newest row has seq > since, by seq, at most limit."""
        ...

    def cursor(self, project: str) -> int:
        """The highest seq of the project (0 when it has no file)."""
        ...

    def listing(self, project: str | None) -> list[FileVersion]:
        """The newest version of every path (of one project, or all), metadata only."""
        ...


class SyncUnitOfWork(UnitOfWork, Protocol):
    @property
    def files(self) -> SyncFileRepository: ...


SyncUnitOfWorkFactory = Callable[[], SyncUnitOfWork]
