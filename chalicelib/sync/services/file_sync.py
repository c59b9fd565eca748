"""Push, pull and list encrypted files. The server only ever handles ciphertext and metadata.

A push is all or nothing: if any of its files changed since the version the machine based it
on, nothing is stored and the answer (409) lists those files with their newer version, which
stays. Retrying a push that was stored already is harmless (same version, same hash).
Pulls follow a per-project cursor (the highest `seq` seen), which never skips a file: pushes to
one project are serialised and commit in `seq` order.
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.logging import get_logger
from chalicelib.sync.domain.sync_model import (
    KEEP_VERSIONS,
    FileVersion,
    PushItem,
    SyncConflict,
    check_items,
    check_machine,
    check_project,
    replayed,
    stale_items,
)
from chalicelib.sync.services.ports import SyncUnitOfWorkFactory

MAX_PULL = 500


@dataclass(frozen=True)
class PullPage:
    files: list[FileVersion]
    cursor: int
    more: bool


class FileSync:
    def __init__(self, uow: SyncUnitOfWorkFactory) -> None:
        self._uow = uow

    def push(self, project: str, machine_id: str, items: list[PushItem]) -> list[FileVersion]:
        """Store every item as its next version, or none of them (SyncConflict)."""
        project, machine_id = check_project(project), check_machine(machine_id)
        checked = check_items(items)
        with self._uow() as uow:
            uow.files.lock_project(project)
            latest = uow.files.latest(project, [i.path for i in checked])
            stale = stale_items(checked, latest)
            if stale:
                raise SyncConflict(stale)
            stored = []
            for item in checked:
                current = latest.get(item.path)
                if replayed(item, current):
                    assert current is not None
                    stored.append(current)
                    continue
                version = uow.files.insert(project, machine_id, item)
                uow.files.prune(project, item.path, version.version - KEEP_VERSIONS + 1)
                stored.append(version)
            uow.commit()
        # Ids and counts only: paths can say more than they should, contents never appear.
        get_logger().info("sync push", extra={"project": project, "machine_id": machine_id,
                                              "files": len(stored)})
        return stored

    def pull(self, project: str, since: int = 0, limit: int = 200) -> PullPage:
        """What changed after cursor `since`, with ciphertext; follow `cursor` while `more`."""
        if since < 0 or not 1 <= limit <= MAX_PULL:
            raise InvalidInput(f"since >= 0 and limit 1-{MAX_PULL}", field="limit")
        return self._page(check_project(project), since, limit, with_ciphertext=True)

    def changes(self, project: str, since: int) -> PullPage:
        """Metadata of what changed after `since` (the cheap question a session start asks)."""
        return self._page(check_project(project), max(since, 0), MAX_PULL, with_ciphertext=False)

    def _page(self, project: str, since: int, limit: int, *, with_ciphertext: bool) -> PullPage:
        with self._uow() as uow:
            latest = uow.files.cursor(project)
            if since > latest:  # a cursor from another database (a restore): start over
                since = 0
            if latest <= since:  # the common case: nothing new, one index lookup
                return PullPage([], since, False)
            rows = uow.files.changed_since(project, since, limit + 1, with_ciphertext=with_ciphertext)
        more = len(rows) > limit
        rows = rows[:limit]
        return PullPage(rows, rows[-1].seq if more else latest, more)

    def listing(self, project: str | None = None) -> list[FileVersion]:
        with self._uow() as uow:
            return uow.files.listing(check_project(project) if project else None)

