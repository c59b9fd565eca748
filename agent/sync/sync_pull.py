"""Pull what other machines pushed: fetch ciphertext, decrypt here, write what is safe to write.

Everything fetched is verified (ciphertext hash) and decrypted before anything is written:
if any file fails to authenticate (wrong passphrase, tampered ciphertext) nothing on disk
changes and the cursor stays. A file changed here since it last synced is a conflict: it is
reported and kept, never overwritten (unless named in `theirs`), and the cursor stays before
it so the conflict is shown again until it is resolved.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

from agent.sync.checkout import Checkout, UnsafePath
from agent.sync.crypto import DecryptionFailed, decrypt, in_parallel
from agent.sync.local_state import Synced, SyncState, plaintext_hash
from agent.sync.sync_push import Api
from chalicelib.contracts.sync_config import add_exclusion
from chalicelib.contracts.sync_envelope import content_hash
from chalicelib.contracts.sync_paths import BadSyncPath, normalise

PAGE = 200


@dataclass
class PullReport:
    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    forgotten: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # the reasons, one per file that did not decrypt


def fetch(api: Api, project: str, since: int) -> tuple[list[dict[str, Any]], int]:
    files: list[dict[str, Any]] = []
    while True:
        page = api.get("/api/sync/pull", project=project, since=since, limit=PAGE)
        files += page["files"]
        since = int(page["cursor"])
        if not page["more"]:
            return files, since


def pull(checkout: Checkout, state: SyncState, api: Api, passphrase: bytes,
         theirs: frozenset[str] = frozenset()) -> PullReport:
    report = PullReport()
    remote, cursor = fetch(api, checkout.project, state.cursor)
    wanted: list[dict[str, Any]] = []
    for item in remote:
        try:
            path = normalise(item["path"])
        except BadSyncPath:
            report.skipped.append(str(item["path"]))
            continue
        known = state.files.get(path)
        if known is not None and known.version >= int(item["version"]) and path not in theirs:
            report.unchanged += 1
        elif item["deleted"]:
            _forget(checkout, state, path, report)
        elif not checkout.config.syncs(path):
            report.skipped.append(path)
        else:
            wanted.append({**item, "path": path})

    def open_one(item: dict[str, Any]) -> bytes | str:
        blob = base64.b64decode(item["ciphertext"])
        if content_hash(blob) != item["content_hash"]:
            return f"{item['path']}: ciphertext does not match its content hash"
        try:
            return decrypt(blob, passphrase, project=checkout.project, path=item["path"],
                           version=int(item["version"]))
        except DecryptionFailed as exc:
            return str(exc)

    opened = in_parallel(open_one, wanted)
    report.failed = [r for r in opened if isinstance(r, str)]
    if report.failed:  # all or nothing: a bad passphrase or a tampered file writes nothing
        return report
    held_back: list[int] = []
    for item, plaintext in zip(wanted, opened, strict=True):
        assert isinstance(plaintext, bytes)
        if not _apply(checkout, state, item, plaintext, theirs, report):
            held_back.append(int(item["seq"]))
    state.cursor = max(state.cursor, min(held_back) - 1) if held_back else cursor
    return report


def _apply(checkout: Checkout, state: SyncState, item: dict[str, Any], plaintext: bytes,
           theirs: frozenset[str], report: PullReport) -> bool:
    """Write or record one decrypted file; False when it is a conflict left for the user."""
    path, known = item["path"], state.files.get(item["path"])
    local = checkout.read_synced(path)
    incoming = checkout.as_synced(path, plaintext)
    # Missing, empty once machine keys are set aside, or unchanged since it last synced: safe to write.
    untouched = not local or (known is not None and plaintext_hash(local) == known.hash)
    if local is not None and plaintext_hash(local) == plaintext_hash(incoming):
        pass  # the same content already: only the version is new to this machine
    elif untouched or path in theirs:
        try:
            checkout.write_pulled(path, plaintext)
        except (OSError, UnsafePath) as exc:
            report.skipped.append(f"{path}: {exc}")
            return True
        report.written.append(path)
    else:
        conflict = {"path": path, "version": int(item["version"]), "machine_id": item["machine_id"],
                    "local_version": known.version if known else 0}
        state.conflicts[path] = conflict
        report.conflicts.append(conflict)
        return False
    synced = checkout.read_synced(path) or b""
    state.files[path] = Synced(int(item["version"]), plaintext_hash(synced), item["content_hash"])
    state.conflicts.pop(path, None)
    return True


def _forget(checkout: Checkout, state: SyncState, path: str, report: PullReport) -> None:
    """Another machine forgot the file: stop syncing it here too; the local copy stays."""
    state.files.pop(path, None)
    state.conflicts.pop(path, None)
    add_exclusion(checkout.home, checkout.project, path)
    report.forgotten.append(path)
