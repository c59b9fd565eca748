"""Postgres: `sync_files`, one row per version of an encrypted file, inside a unit of work."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import psycopg

from chalicelib.kernel.unit_of_work import postgres_units
from chalicelib.sync.domain.sync_model import FileVersion, PushItem
from chalicelib.sync.services.ports import SyncUnitOfWork

Conn = psycopg.Connection[Any]
_COLUMNS = ("seq", "project", "path", "version", "machine_id", "content_hash", "size", "created_at")
_META = ", ".join(_COLUMNS)
_F_META = ", ".join(f"f.{c}" for c in _COLUMNS)
_LATEST = ("SELECT DISTINCT ON (path) seq FROM sync_files WHERE project = %(project)s"
           " ORDER BY path, version DESC")


def _lock_key(project: str) -> int:
    """A stable signed 64-bit advisory-lock key per project."""
    return int.from_bytes(hashlib.sha256(b"sync:" + project.encode()).digest()[:8], "big", signed=True)


def _version(row: dict[str, Any]) -> FileVersion:
    blob = row.get("ciphertext")
    return FileVersion(project=row["project"], path=row["path"], version=row["version"],
                       machine_id=row["machine_id"], content_hash=row["content_hash"], size=row["size"],
                       deleted=row["content_hash"] == "", seq=row["seq"], created_at=row["created_at"],
                       ciphertext=bytes(blob) if blob is not None else None)


class PostgresSyncFileRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def lock_project(self, project: str) -> None:
        self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_lock_key(project),))

    def latest(self, project: str, paths: Sequence[str]) -> dict[str, FileVersion]:
        rows = self._conn.execute(
            f"SELECT DISTINCT ON (path) {_META} FROM sync_files"
            " WHERE project = %s AND path = ANY(%s) ORDER BY path, version DESC",
            (project, list(paths))).fetchall()
        return {r["path"]: _version(r) for r in rows}

    def insert(self, project: str, machine_id: str, item: PushItem) -> FileVersion:
        blob = item.ciphertext
        row = self._conn.execute(
            "INSERT INTO sync_files (project, path, version, machine_id, content_hash, size, ciphertext)"
            f" VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING {_META}",
            (project, item.path, item.base_version + 1, machine_id, item.content_hash or "",
             len(blob) if blob is not None else 0, blob)).fetchone()
        assert row is not None
        return _version(row)

    def prune(self, project: str, path: str, keep_from_version: int) -> None:
        self._conn.execute("DELETE FROM sync_files WHERE project = %s AND path = %s AND version < %s",
                           (project, path, keep_from_version))

    def changed_since(self, project: str, since: int, limit: int, *,
                      with_ciphertext: bool) -> list[FileVersion]:
        columns = _F_META + (", f.ciphertext" if with_ciphertext else "")
        rows = self._conn.execute(
            f"SELECT {columns} FROM sync_files f JOIN ({_LATEST}) latest USING (seq)"
            " WHERE f.seq > %(since)s ORDER BY f.seq LIMIT %(limit)s",
            {"project": project, "since": since, "limit": limit}).fetchall()
        return [_version(r) for r in rows]

    def cursor(self, project: str) -> int:
        row = self._conn.execute("SELECT coalesce(max(seq), 0) AS seq FROM sync_files WHERE project = %s",
                                 (project,)).fetchone()
        return int(row["seq"]) if row else 0

    def listing(self, project: str | None) -> list[FileVersion]:
        rows = self._conn.execute(
            f"SELECT DISTINCT ON (project, path) {_META} FROM sync_files"
            " WHERE (%(project)s::text IS NULL OR project = %(project)s)"
            " ORDER BY project, path, version DESC", {"project": project}).fetchall()
        return [_version(r) for r in rows]


def sync_units(db: Any) -> Callable[[], SyncUnitOfWork]:
    return postgres_units(db, files=PostgresSyncFileRepository)
