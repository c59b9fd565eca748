"""An in-memory `sync_files` behind the sync service's ports, for unit tests.

It passes the same contract tests as the Postgres repository (tests/unit/test_file_sync.py
and tests/integration/sync/test_sync_repository_contract.py run one suite against both).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from chalicelib.kernel.unit_of_work import InMemoryUnitOfWork
from chalicelib.sync.domain.sync_model import FileVersion, PushItem


class InMemorySyncFiles:
    def __init__(self) -> None:
        self.rows: list[FileVersion] = []
        self._seq = itertools.count(1)
        self.locked: list[str] = []

    def lock_project(self, project: str) -> None:
        self.locked.append(project)

    def _latest_rows(self, project: str | None) -> dict[tuple[str, str], FileVersion]:
        latest: dict[tuple[str, str], FileVersion] = {}
        for row in self.rows:
            key = (row.project, row.path)
            if (project is None or row.project == project) and (
                    key not in latest or row.version > latest[key].version):
                latest[key] = row
        return latest

    def latest(self, project: str, paths: Sequence[str]) -> dict[str, FileVersion]:
        rows = self._latest_rows(project)
        return {p: replace(rows[(project, p)], ciphertext=None) for p in paths if (project, p) in rows}

    def insert(self, project: str, machine_id: str, item: PushItem) -> FileVersion:
        if any(r.project == project and r.path == item.path and r.version == item.base_version + 1
               for r in self.rows):
            raise ValueError("unique violation")
        blob = item.ciphertext
        row = FileVersion(project, item.path, item.base_version + 1, machine_id, item.content_hash or "",
                          len(blob) if blob is not None else 0, blob is None, next(self._seq),
                          datetime.now(UTC), blob)
        self.rows.append(row)
        return replace(row, ciphertext=None)

    def prune(self, project: str, path: str, keep_from_version: int) -> None:
        self.rows = [r for r in self.rows if not (r.project == project and r.path == path
                                                  and r.version < keep_from_version)]

    def changed_since(self, project: str, since: int, limit: int, *,
                      with_ciphertext: bool) -> list[FileVersion]:
        rows = sorted((r for r in self._latest_rows(project).values() if r.seq > since), key=lambda r: r.seq)
        return [r if with_ciphertext else replace(r, ciphertext=None) for r in rows[:limit]]

    def cursor(self, project: str) -> int:
        return max((r.seq for r in self.rows if r.project == project), default=0)

    def listing(self, project: str | None) -> list[FileVersion]:
        rows = self._latest_rows(project)
        return [replace(rows[k], ciphertext=None) for k in sorted(rows)]


class InMemorySyncUnitOfWork(InMemoryUnitOfWork):
    """Shares one store across units of work; `commit` is recorded, a rollback is not modelled."""

    def __init__(self, files: InMemorySyncFiles) -> None:
        super().__init__()
        self.files = files
