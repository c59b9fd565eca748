"""Push this checkout's changed synced files: encrypt here, send ciphertext, record versions.

A file is pushed when its synced form differs from what this machine last synced. Each push
is based on the version this machine has; the server refuses (409) a file that moved on
since, and that file is reported as a conflict (`itachi sync pull` shows both sides, `push
--mine PATH` overrides). Requests are packed under the API's body limit.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent.sync.checkout import Checkout
from agent.sync.crypto import encrypt, in_parallel
from agent.sync.local_state import Synced, SyncState, clear_pending, plaintext_hash
from chalicelib.contracts.api_transport import ApiError
from chalicelib.contracts.sync_envelope import content_hash

MAX_BATCH_CHARS = 800_000  # base64 ciphertext per request, under the 1 MB body limit
MAX_BATCH_FILES = 500


class Api(Protocol):
    def get(self, path: str, **params: Any) -> Any: ...

    def post(self, path: str, body: Any | None = None) -> Any: ...


@dataclass
class PushReport:
    pushed: list[str] = field(default_factory=list)
    unchanged: int = 0
    conflicts: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class _Outgoing:
    path: str
    base_version: int
    plain_hash: str
    blob: bytes

    def wire(self) -> dict[str, Any]:
        return {"path": self.path, "base_version": self.base_version, "content_hash": content_hash(self.blob),
                "ciphertext": base64.b64encode(self.blob).decode()}


def remote_versions(api: Api, project: str) -> dict[str, int]:
    listed = api.get("/api/sync/files", project=project)["files"]
    return {f["path"]: int(f["version"]) for f in listed}


def push(checkout: Checkout, state: SyncState, api: Api, machine_id: str, passphrase: bytes,
         paths: list[str] | None = None, mine: frozenset[str] = frozenset()) -> PushReport:
    """Push `paths` (default: every synced file) that changed; update `state` for what was stored."""
    report = PushReport()
    bases = remote_versions(api, checkout.project) if mine else {}
    todo: list[tuple[str, int, bytes]] = []
    for path in paths if paths is not None else checkout.scan():
        data = checkout.read_synced(path)
        if data is None or not checkout.config.syncs(path):
            continue
        known = state.files.get(path)
        if known is not None and known.hash == plaintext_hash(data) and path not in mine:
            report.unchanged += 1
            continue
        base = bases.get(path, 0) if path in mine else (known.version if known else 0)
        todo.append((path, base, data))

    def seal(item: tuple[str, int, bytes]) -> _Outgoing:
        path, base, data = item
        blob = encrypt(data, passphrase, project=checkout.project, path=path, version=base + 1,
                       iterations=checkout.config.iterations)
        return _Outgoing(path, base, plaintext_hash(data), blob)

    for batch in _batches(in_parallel(seal, todo)):
        _send(checkout, state, api, machine_id, batch, report)
    clear_pending(checkout.home, checkout.project, checkout.root,
                  set(report.pushed) | {c["path"] for c in report.conflicts})
    return report


def _batches(items: list[_Outgoing]) -> list[list[_Outgoing]]:
    batches: list[list[_Outgoing]] = [[]]
    size = 0
    for item in items:
        cost = len(item.blob) * 4 // 3 + len(item.path) + 200
        if batches[-1] and (size + cost > MAX_BATCH_CHARS or len(batches[-1]) >= MAX_BATCH_FILES):
            batches.append([])
            size = 0
        batches[-1].append(item)
        size += cost
    return [b for b in batches if b]


def _send(checkout: Checkout, state: SyncState, api: Api, machine_id: str, batch: list[_Outgoing],
          report: PushReport) -> None:
    while batch:
        body = {"project": checkout.project, "machine_id": machine_id, "files": [i.wire() for i in batch]}
        try:
            stored = api.post("/api/sync/push", body)["files"]
        except ApiError as exc:
            conflicts = (exc.body or {}).get("conflicts") if exc.status == 409 else None
            if not conflicts:
                raise
            report.conflicts += conflicts
            for conflict in conflicts:
                state.conflicts[conflict["path"]] = {"version": conflict["current_version"],
                                                     "machine_id": conflict["machine_id"]}
            refused = {c["path"] for c in conflicts}
            batch = [i for i in batch if i.path not in refused]
            continue
        by_path = {i.path: i for i in batch}
        for version in stored:
            item = by_path[version["path"]]
            state.files[item.path] = Synced(int(version["version"]), item.plain_hash, version["content_hash"])
            state.conflicts.pop(item.path, None)
            report.pushed.append(item.path)
        return
