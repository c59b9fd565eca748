"""Synced files as the server knows them: ciphertext, its hash, and metadata. Never plaintext.

A file's versions count up from 1. A push names the version it was based on (0 for a new
file); it is accepted only when that is still the latest, so a machine that missed an update
cannot overwrite it (optimistic concurrency). A forgotten file gets a tombstone version
without ciphertext, which tells the other machines to stop syncing it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chalicelib.contracts.sync_envelope import NotAnEnvelope, content_hash, parse_header
from chalicelib.contracts.sync_paths import BadSyncPath, normalise
from chalicelib.kernel.errors import Conflict, InvalidInput
from chalicelib.kernel.redaction import redact

MACHINE_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
KEEP_VERSIONS = 10  # older versions of a path are pruned when a new one is stored
MAX_FILES_PER_PUSH = 500


@dataclass(frozen=True)
class PushItem:
    """One file of a push: the version it replaces and its new ciphertext (None: forget it)."""

    path: str
    base_version: int
    ciphertext: bytes | None
    content_hash: str | None = None

    @property
    def deleted(self) -> bool:
        return self.ciphertext is None


@dataclass(frozen=True)
class FileVersion:
    project: str
    path: str
    version: int
    machine_id: str
    content_hash: str
    size: int
    deleted: bool
    seq: int = 0
    created_at: datetime | None = None
    ciphertext: bytes | None = None

    def metadata(self) -> dict[str, Any]:
        return {"path": self.path, "version": self.version, "machine_id": self.machine_id,
                "content_hash": self.content_hash, "size": self.size, "deleted": self.deleted,
                "seq": self.seq, "updated_at": self.created_at.isoformat() if self.created_at else None}


@dataclass(frozen=True)
class StaleBase:
    """A push item based on a version that is no longer the latest."""

    path: str
    base_version: int
    current: FileVersion | None

    def to_json(self) -> dict[str, Any]:
        current = self.current
        return {"path": self.path, "base_version": self.base_version,
                "current_version": current.version if current else 0,
                "machine_id": current.machine_id if current else None,
                "updated_at": current.created_at.isoformat() if current and current.created_at else None}


class SyncConflict(Conflict):
    """The push was refused as a whole: these files changed since the pushing machine saw them."""

    def __init__(self, stale: list[StaleBase]) -> None:
        paths = ", ".join(s.path for s in stale[:5]) + (" ..." if len(stale) > 5 else "")
        super().__init__(f"{len(stale)} file(s) changed since your version: {paths}; pull first")
        self.stale = stale


def check_project(project: str) -> str:
    clean = project.strip()
    if not clean or len(clean) > 200:
        raise InvalidInput("project: 1-200 characters", field="project")
    return clean


def check_machine(machine_id: str) -> str:
    if not MACHINE_ID.match(machine_id):
        raise InvalidInput("machine_id: 1-40 letters, digits, '-' or '_'", field="machine_id")
    return machine_id


def check_item(item: PushItem) -> PushItem:
    """The item with a canonical path; InvalidInput if it could not be stored as ciphertext, or
    if its path holds a secret: stored redacted, it would no longer match the path the envelope
    authenticates, so the file could not be opened anywhere (the message does not repeat it)."""
    try:
        path = normalise(item.path)
    except BadSyncPath as exc:
        raise InvalidInput(f"path: {exc}", field="path") from None
    if redact(path) != path:
        raise InvalidInput("path: a file whose path holds a secret cannot sync (a secret is never "
                           "stored); rename it or exclude it", field="path")
    if item.base_version < 0:
        raise InvalidInput("base_version: 0 for a new file, else the version it replaces",
                           field="base_version")
    if item.ciphertext is None:
        return PushItem(path, item.base_version, None)
    try:
        parse_header(item.ciphertext)
    except NotAnEnvelope as exc:  # a plaintext push is refused: the server stores ciphertext only
        raise InvalidInput(f"{path}: {exc}", field="ciphertext") from None
    digest = content_hash(item.ciphertext)
    if item.content_hash is not None and item.content_hash.lower() != digest:
        raise InvalidInput(f"{path}: content_hash is not the SHA-256 of the ciphertext",
                           field="content_hash")
    return PushItem(path, item.base_version, item.ciphertext, digest)


def check_items(items: list[PushItem]) -> list[PushItem]:
    if not items or len(items) > MAX_FILES_PER_PUSH:
        raise InvalidInput(f"files: 1-{MAX_FILES_PER_PUSH} files per push", field="files")
    checked = [check_item(i) for i in items]
    if len({i.path for i in checked}) != len(checked):
        raise InvalidInput("files: each path at most once per push", field="files")
    return checked


def stale_items(items: list[PushItem], latest: dict[str, FileVersion]) -> list[StaleBase]:
    """The items whose base is not the latest version (0 when the path has none)."""
    stale = []
    for item in items:
        current = latest.get(item.path)
        if item.base_version != (current.version if current else 0) and not replayed(item, current):
            stale.append(StaleBase(item.path, item.base_version, current))
    return stale


def replayed(item: PushItem, current: FileVersion | None) -> bool:
    """A retried push that was already stored (same resulting version, same ciphertext hash)."""
    if current is None or current.version != item.base_version + 1:
        return False
    return current.deleted if item.deleted else current.content_hash == item.content_hash
