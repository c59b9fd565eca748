"""The outbox: one JSON file per undelivered POST under $ITACHI_HOME/outbox/.

File names start with a zero-padded nanosecond timestamp, so a sorted listing is oldest
first. A sender claims an entry by renaming it (atomic on every platform) to a name that
carries the claim's time, so two hooks replaying at once never send the same entry twice, and
a claim's age is read from its name, never from the file's modification time (which a rename
keeps: an entry that waited an hour would look stale the instant it was claimed). A claim left
by a killed process is released again after ``STALE_CLAIM_S``. Entries the server rejects as malformed move to
``rejected/`` for a human to look at rather than being dropped.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

TYPE_CHECKING = False  # typing itself is not imported at run time (hooks.launch)
if TYPE_CHECKING:
    from typing import Any

CLAIM_SUFFIX = ".claimed"
STALE_CLAIM_S = 300.0


class Outbox:
    """A directory of spooled requests, replayed oldest first."""

    def __init__(self, root: Path, stale_claim_s: float = STALE_CLAIM_S) -> None:
        self.root = root
        self.stale_claim_s = stale_claim_s

    def put(self, entry: dict[str, Any], hook: str) -> Path:
        """Write entry atomically and return its path."""
        self.root.mkdir(parents=True, exist_ok=True)
        stamp = f"{time.time_ns():020d}"
        name = f"{stamp}-{os.getpid()}-{os.urandom(4).hex()}.json"
        record = {**entry, "hook": hook, "spooled_at": time.time()}
        target = self.root / name
        temp = self.root / f".{name}.tmp"
        temp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(temp, target)
        return target

    def pending(self, limit: int) -> list[Path]:
        """Return up to limit unclaimed entries, oldest first (stale claims are released)."""
        try:
            names = sorted(os.listdir(self.root))
        except OSError:
            return []
        now = time.time()
        entries: list[Path] = []
        for name in names:
            path = self.root / name
            if name.endswith(CLAIM_SUFFIX):
                self._release_if_stale(path, now)
            elif name.endswith(".json") and not name.startswith("."):
                entries.append(path)
        return entries[:limit]

    def claim(self, path: Path) -> Path | None:
        """Take entry path for sending; None if another process already took it."""
        claimed = path.with_name(f"{path.name}.{time.time_ns()}{CLAIM_SUFFIX}")
        try:
            os.rename(path, claimed)
        except OSError:
            return None
        return claimed

    def load(self, claimed: Path) -> dict[str, Any] | None:
        try:
            entry = json.loads(claimed.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self._move_to_rejected(claimed)
            return None
        if isinstance(entry, dict) and {"method", "path"} <= entry.keys():
            return entry
        self._move_to_rejected(claimed)
        return None

    def done(self, claimed: Path) -> None:
        with contextlib.suppress(OSError):
            os.remove(claimed)

    def release(self, claimed: Path) -> None:
        with contextlib.suppress(OSError):
            os.rename(claimed, claimed.with_name(_entry_name(claimed.name)))

    def reject(self, claimed: Path) -> None:
        self._move_to_rejected(claimed)

    def _move_to_rejected(self, claimed: Path) -> None:
        target = self.root / "rejected" / _entry_name(claimed.name)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(claimed, target)
        except OSError:
            pass

    def _release_if_stale(self, claimed: Path, now: float) -> None:
        try:
            if now - _claimed_at(claimed) > self.stale_claim_s:
                self.release(claimed)
        except OSError:
            pass


def _entry_name(claimed_name: str) -> str:
    """`<entry>.json.<ns>.claimed` (or an older `<entry>.json.claimed`) -> `<entry>.json`."""
    stem = claimed_name[: -len(CLAIM_SUFFIX)]
    head, _, stamp = stem.rpartition(".")
    return head if stamp.isdigit() and head.endswith(".json") else stem


def _claimed_at(claimed: Path) -> float:
    """When the claim was taken: from its name, or the file's time for an older claim."""
    stamp = claimed.name[: -len(CLAIM_SUFFIX)].rpartition(".")[2]
    return int(stamp) / 1e9 if stamp.isdigit() else claimed.stat().st_mtime
